/**
 * The Docker engine restarts while instances run (an upgrade, a crash, a host reboot). The
 * engine here is a private one (test/support/docker/private-engine.ts), so restarting it disturbs
 * no other test. While it is down the reconciler leaves every record as it is (the backend is
 * unreachable, which proves nothing about the instances); once it is back, the records converge
 * on what the engine shows: a running instance whose container the engine restarted is running, a
 * stopped one stays stopped, and one whose container vanished meanwhile is an error.
 */
import t from 'tap'
import { build } from '../support/build.ts'
import { bearer, signup } from '../support/accounts.ts'
import { privateEngineUnavailable, startPrivateEngine } from '../support/docker/private-engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, TEST_IMAGE_TEMPLATE, uniqueSubdomain, waitForState } from '../support/instances.ts'

const CONVERGE_WITHIN_MS = 60_000
const unavailable = privateEngineUnavailable()

if (unavailable !== undefined) {
  if (process.env.DOCKER_TESTS === 'required') t.fail(`DOCKER_TESTS=required, but a private Docker engine cannot run here: ${unavailable}`)
  else t.test('after an engine restart the reconciler converges every instance on the truth', { skip: `DOCKER ENGINE RESTART NOT TESTED: ${unavailable}` }, () => {})
} else {
  t.test('after an engine restart the reconciler converges every instance on the truth', async (t) => {
    const engine = await startPrivateEngine()
    t.teardown(() => engine.destroy())
    await tagTestImages()
    await engine.loadImage(TEST_IMAGE_TEMPLATE.replace('{version}', '17.0'))
    process.env.DOCKER_HOST = engine.host // the app's Docker backend (new Docker()) talks to the private engine

    const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
    t.teardown(() => cleanupInstances(databaseUrl))
    const admin = await signup(app)
    const create = async (name: string) => {
      const subdomain = uniqueSubdomain('restart')
      const response = await app.inject({
        method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
        payload: { name, subdomain, erp_version: '17.0', backend: 'docker' }
      })
      t.equal(response.statusCode, 202, response.body)
      const id = response.json().instance.id as number
      await waitForState(app, admin.token, id, ['running'])
      return { id, container: `erp-${subdomain}` }
    }
    const survivor = await create('Survivor')
    const vanished = await create('Vanished')
    const stopped = await create('Stopped')
    t.equal((await app.inject({ method: 'POST', url: `/api/instances/${stopped.id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
    await waitForState(app, admin.token, stopped.id, ['stopped'])
    t.match(await app.instances.reconcileNow(), { checked: 3, corrected: 0, unreachable: [] }, 'nothing to correct before the restart')

    await engine.stop()
    const down = await app.instances.reconcileNow()
    t.match(down, { corrected: 0 }, 'an unreachable engine corrects nothing')
    t.ok(down.unreachable.length > 0, `the backend is reported unreachable: ${JSON.stringify(down.unreachable)}`)
    t.equal((await waitForState(app, admin.token, survivor.id, ['running'], 1000)).state, 'running', 'records stay as they were meanwhile')

    await engine.start()
    const back = Date.now()
    await engine.docker.getContainer(vanished.container).remove({ force: true, v: true })

    const states = async () => Object.fromEntries(await Promise.all(
      [['survivor', survivor.id], ['vanished', vanished.id], ['stopped', stopped.id]].map(async ([name, id]) =>
        [name, (await waitForState(app, admin.token, Number(id), ['running', 'stopped', 'error', 'starting', 'stopping'], 1000)).state])
    )) as Record<string, string>
    const truth = { survivor: 'running', vanished: 'error', stopped: 'stopped' }
    let seen = await states()
    while (JSON.stringify(seen) !== JSON.stringify(truth) && Date.now() - back < CONVERGE_WITHIN_MS) {
      await app.instances.reconcileNow()
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      seen = await states()
    }
    t.same(seen, truth, 'every record says what the engine shows')
    t.comment(`converged ${((Date.now() - back) / 1000).toFixed(1)} s after the engine answered again`)
    const container = await engine.docker.getContainer(survivor.container).inspect()
    t.equal(container.State.Running, true, 'the engine restarted the running instance\'s container (restart policy unless-stopped)')
    t.equal((await engine.docker.getContainer(stopped.container).inspect()).State.Running, false, 'and left the stopped one stopped')
  })
}
