/**
 * provision with `start: false` on the real engine: what a restore makes before its data is in. The
 * container and its volume exist, the ERP has not run, and observe reports it as a container made
 * but never started (`starting`, "created"), which the restore job takes as not running; start
 * then runs it.
 */
import t from 'tap'
import { requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { idle } from '../../../plugins/app/instances/instance-wait.ts'
import { dockerFixture, tenantName, volumeExists, waitForState } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)

engine.test('provision { start: false } makes the container and its volume and starts nothing; start runs it', async (t) => {
  const backend = fx.backend()
  const spec = fx.spec(tenantName())
  const name = `erp-${spec.subdomain}`
  await backend.provision(spec, { start: false })
  const info = await engine.docker.getContainer(name).inspect()
  t.equal(info.State.Status, 'created', 'made, never started')
  t.equal(info.State.StartedAt, '0001-01-01T00:00:00Z', 'the ERP process never ran')
  t.ok(await volumeExists(`${name}-data`))
  const seen = await backend.observe(spec)
  t.same(seen, { state: 'starting', message: 'created' })
  t.ok(idle(seen), 'which a restore takes as not running')
  await backend.provision(spec, { start: false })
  t.equal((await engine.docker.getContainer(name).inspect()).State.Status, 'created', 'twice: still not started')
  await backend.stop(spec)
  t.ok(idle(await backend.observe(spec)), 'stopping it changes nothing')

  await backend.start(spec)
  await waitForState(backend, spec, 'running')
  t.notOk(idle(await backend.observe(spec)))
})
