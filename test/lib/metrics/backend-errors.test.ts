/** Failed backend calls are counted by backend and operation, the runners' calls under their own names. */
import t from 'tap'
import type { ProvisioningBackend } from '../../../provisioning/backend.ts'
import { countingBackendErrors } from '../../../lib/metrics/backend-errors.ts'
import { createServiceMetrics } from '../../../lib/metrics/service-metrics.ts'

const refuse = async (): Promise<never> => { throw new Error('the backend said no') }

t.test('a failed call of the backend, its backup runner or its cluster Jobs counts once under its operation', async (t) => {
  const metrics = createServiceMetrics()
  const backend = countingBackendErrors({
    name: 'kubernetes',
    start: refuse,
    observe: async () => ({ state: 'running' }),
    backups: { dumpDatabase: refuse },
    clusterBackups: { restore: refuse }
  } as unknown as ProvisioningBackend, metrics)

  await t.rejects(backend.start({} as never), /said no/)
  await t.rejects(backend.backups!.dumpDatabase({} as never, 15, ''), /said no/)
  await t.rejects(backend.clusterBackups!.restore({} as never, 15, {} as never), /said no/)
  await t.rejects(backend.clusterBackups!.restore({} as never, 15, {} as never), /said no/)
  await backend.observe({} as never)

  const counts = (await metrics.backendCallErrors.get()).values.map(({ labels, value }) => [labels.operation, value])
  t.same(new Map(counts as Array<[string, number]>), new Map([['start', 1], ['backups.dumpDatabase', 1], ['clusterBackups.restore', 2]]))
})
