/** stop, start, restart and remove, and how they leave field ownership for the next provision. */
import t from 'tap'
import { instanceObjects, instanceSpec, QUOTA, setup, TENANT_ID, versions, waitForState } from './setup.ts'

const podNames = (kube: Awaited<ReturnType<typeof setup>>['kube']): string[] => kube.list('Pod', 'erp-acme').map((p) => String(p.metadata?.name))

t.test('stop scales to 0 (stopped), start back to 1 (running); both are idempotent', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 100 })
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')

  await backend.stop(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 0)
  t.same(await waitForState(backend, spec, 'stopped'), { state: 'stopped', message: 'scaled to 0 replicas' })
  t.same(podNames(kube), [])
  const stopped = versions(kube, instanceObjects('shop'))
  await backend.stop(spec)
  t.same(versions(kube, instanceObjects('shop')), stopped, 'stopping a stopped instance changes nothing')

  await backend.start(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 1)
  t.equal((await backend.observe(spec)).state, 'starting')
  await waitForState(backend, spec, 'running')
  const running = versions(kube, instanceObjects('shop'))
  await backend.start(spec)
  t.same(versions(kube, instanceObjects('shop')), running, 'starting a running instance leaves it alone')

  const deployment = kube.get('Deployment', 'erp-acme', 'erp-shop')
  t.same(deployment?.metadata?.managedFields?.filter((m: { manager: string, operation: string }) => m.operation !== 'Update' || m.manager !== 'kube-controller-manager').map((m: { manager: string }) => m.manager), ['erp-portal'],
    'replicas are only ever written by the one apply manager: provision, stop and start never fight')
  t.same(kube.internalErrors, [])
})

t.test('stop of a missing instance is a success and creates nothing', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.stop(instanceSpec())
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop'), undefined)
  t.same(kube.internalErrors, [])
})

t.test('provision of a stopped instance starts it (provision converges and starts)', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.provision(spec)
  await backend.stop(spec)
  await backend.provision(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 1)
  t.same(kube.internalErrors, [])
})

t.test('restart sets the pod-template annotation; a new pod rolls out; a later provision keeps it', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 100 })
  const spec = instanceSpec()
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const [before] = podNames(kube)
  const generation = kube.get('Deployment', 'erp-acme', 'erp-shop')?.metadata?.generation

  await backend.restart(spec)
  const restarted = kube.get('Deployment', 'erp-acme', 'erp-shop')
  const stamp = restarted?.spec?.template?.metadata?.annotations?.['erp.portal/restartedAt']
  t.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.equal(restarted?.metadata?.generation, generation + 1)
  const managers = restarted?.metadata?.managedFields?.map((m: { manager: string, operation: string }) => `${m.manager}/${m.operation}`)
  t.ok(managers.includes('erp-portal/Apply') && managers.includes('erp-portal-restart/Apply'), 'the annotation has its own field manager')
  t.equal((await backend.observe(spec)).state, 'starting', 'Recreate: the old pod is gone at once')
  await waitForState(backend, spec, 'running')
  const after = podNames(kube)
  t.equal(after.length, 1)
  t.not(after[0], before, 'a new pod')

  const settled = versions(kube, instanceObjects('shop'))
  await backend.provision(spec)
  t.same(versions(kube, instanceObjects('shop')), settled, 'provision does not undo the restart annotation (no new rollout)')
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.template?.metadata?.annotations?.['erp.portal/restartedAt'], stamp)

  await backend.restart(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.metadata?.generation, generation + 2, 'each restart rolls out again')
  t.same(kube.internalErrors, [])
})

t.test('restart of a stopped instance starts it, without a restart annotation', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.provision(spec)
  await backend.stop(spec)
  await backend.restart(spec)
  const deployment = kube.get('Deployment', 'erp-acme', 'erp-shop')
  t.equal(deployment?.spec?.replicas, 1)
  t.equal(deployment?.spec?.template?.metadata?.annotations, undefined)
  await waitForState(backend, spec, 'running')
  t.same(kube.internalErrors, [])
})

t.test('remove deletes the five objects (twice is fine), not the namespace nor the addons claim', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  const other = instanceSpec({ subdomain: 'books' })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await backend.provision(other)

  await backend.remove(spec)
  for (const [kind, ns, name] of instanceObjects('shop')) t.equal(kube.get(kind, ns, name), undefined, `${kind} ${name} deleted`)
  for (const [kind, ns, name] of instanceObjects('books')) t.ok(kube.get(kind, ns, name), `${kind} ${name} of the other instance kept`)
  t.ok(kube.get('Namespace', undefined, 'erp-acme'))
  t.ok(kube.get('PersistentVolumeClaim', 'erp-acme', 'addons-acme'))
  t.ok(kube.get('ResourceQuota', 'erp-acme', 'erp-quota'))
  t.same(await backend.observe(spec), { state: 'missing' })

  await backend.remove(spec)
  await backend.remove(instanceSpec({ tenantSubdomain: 'nobody' }))
  t.same(kube.internalErrors, [])
})

t.test('start or restart of an instance whose Deployment is gone provisions it again', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.start(spec)
  for (const [kind, ns, name] of instanceObjects('shop')) t.ok(kube.get(kind, ns, name), `${kind} ${name}`)
  await backend.remove(spec)
  await backend.restart(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 1)
  t.same(kube.internalErrors, [])
})
