/** One-off backup containers that a killed attempt left behind are swept; nothing else is. */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { createDockerBackupRunner } from '../../../provisioning/docker/backup-runner.ts'
import { createEngineCall } from '../../../provisioning/docker/engine-calls.ts'
import { dockerClient, requireDockerOrSkipLoudly, testImage } from '../../support/docker/engine.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('sweep removes the labelled one-off containers older than the age given, created or exited, and only those', async (t) => {
  const engine = dockerClient()
  const run = `sweep-${randomBytes(4).toString('hex')}` // this test's containers only: other work shares the engine
  const runner = createDockerBackupRunner(engine, createEngineCall(engine, 10_000), { imageTemplate: 'unused:{pg_major}', labels: { 'erp.test-sweep': run }, pullTimeoutMs: 10_000 })
  const make = async (labels: Record<string, string>, start: boolean) => {
    const container = await engine.createContainer({ Image: await testImage(), Entrypoint: ['true'], Labels: { 'erp.test-sweep': run, ...labels } })
    if (start) { await container.start(); await container.wait() }
    return container.id
  }
  const created = await make({ 'erp.managed': 'backup' }, false)
  const exited = await make({ 'erp.managed': 'backup' }, true)
  const instance = await make({ 'erp.managed': 'true' }, false)
  t.teardown(async () => { for (const id of [created, exited, instance]) await engine.getContainer(id).remove({ force: true }).catch(() => {}) })
  const present = async () => (await engine.listContainers({ all: true, filters: { label: [`erp.test-sweep=${run}`] } })).map((c) => c.Id).sort()

  t.equal(await runner.sweep!(3600_000), 0, 'nothing that young')
  t.same(await present(), [created, exited, instance].sort())
  await new Promise((resolve) => setTimeout(resolve, 1100)) // Created is in whole seconds
  t.equal(await runner.sweep!(1000), 2)
  t.same(await present(), [instance], 'the instance\'s own container stays')
  t.equal(await runner.sweep!(0), 0, 'twice is harmless')
})
