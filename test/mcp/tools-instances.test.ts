import t from 'tap'
import { signup } from '../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain } from '../support/instances.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, latestActivity, personName, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const ID_TOOLS = ['get_instance', 'get_instance_status', 'start_instance', 'stop_instance', 'restart_instance']

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

// No KUBECONFIG here: the kubernetes backend is offered but not configured, so nothing below reaches a backend.
const { app, connectAgent } = await startMcpFixture(t, { INSTANCE_BACKENDS: 'docker,kubernetes' })
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Instance agent')

t.test('list_instances, get_instance and get_instance_status read the company\'s instances', async (t) => {
  const running = await recordInstance(app, admin.user.tenant_id)
  const stopped = await recordInstance(app, admin.user.tenant_id, { state: 'stopped', backend: 'kubernetes' })
  const other = await signup(app)
  const foreign = await recordInstance(app, other.user.tenant_id)

  const { instances } = assertToolSuccess(t, await useTool(app, token, 'list_instances'), 'list_instances')
  t.same(instances.map((instance: { id: number }) => instance.id).sort(), [running, stopped].sort(), 'its own two, not the other company\'s')
  t.notOk(instances.some((instance: { id: number }) => instance.id === foreign))

  const { instance } = assertToolSuccess(t, await useTool(app, token, 'get_instance', { instance_id: stopped }), 'get_instance')
  t.match(instance, { id: stopped, state: 'stopped', backend: 'kubernetes', erp_version: '17.0', memory: 1024, cpu: 1, storage: 10, database_name: String })
  const { status } = assertToolSuccess(t, await useTool(app, token, 'get_instance_status', { instance_id: running }), 'get_instance_status')
  t.match(status, { id: running, state: 'running', updated_at: String })
})

t.test('another company\'s instance is INSTANCE_NOT_FOUND for every instance tool, and stays as it was', async (t) => {
  const victim = await signup(app)
  const theirs = await recordInstance(app, victim.user.tenant_id)
  const before = await tenantSnapshot(app, victim.user.tenant_id)
  for (const tool of ID_TOOLS) {
    assertToolError(t, await useTool(app, token, tool, { instance_id: theirs }), 'INSTANCE_NOT_FOUND', tool)
  }
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), before, 'state, activity and everything else unchanged')
  const seen = await restCall(app, victim.token, 'GET', `/api/instances/${theirs}`)
  t.equal(seen.data.instance.state, 'running', 'the victim\'s instance still runs')
})

t.test('invalid arguments are VALIDATION_FAILED naming the field, and record nothing', async (t) => {
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  for (const tool of ID_TOOLS) {
    for (const args of [{ instance_id: 'prod' }, {}, { instance_id: '42' }, { instance_id: 0 }, { instance_id: 1.5 }, { instance_id: '00000000-0000-4000-8000-000000000000' }]) {
      const error = assertToolError(t, await useTool(app, token, tool, args), 'VALIDATION_FAILED', `${tool} ${JSON.stringify(args)}`)
      t.match(error.details.fields, [{ field: 'instance_id', in: 'arguments' }])
    }
  }
  const valid = { name: 'Production', subdomain: uniqueSubdomain('val'), erp_version: '17.0', backend: 'kubernetes' }
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...valid, name: '' }, 'name'],
    [{ ...valid, subdomain: 'Prod_1' }, 'subdomain'],
    [{ ...valid, subdomain: 'ab' }, 'subdomain'],
    [{ ...valid, backend: 'nomad' }, 'backend'],
    [{ ...valid, erp_version: 17 }, 'erp_version'],
    [{ ...valid, tenant_id: admin.user.tenant_id }, 'tenant_id'],
    [{ name: valid.name, erp_version: valid.erp_version, backend: valid.backend }, 'subdomain']
  ]
  for (const [args, field] of cases) {
    const error = assertToolError(t, await useTool(app, token, 'create_instance', args), 'VALIDATION_FAILED', `create_instance ${field}`)
    t.ok(error.details.fields.some((f: { field: string }) => f.field === field), `create_instance: names ${field}`)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before)
})

t.test('without a configured backend, create and start are INSTANCE_BACKEND_UNAVAILABLE in the tenant\'s words and record nothing', async (t) => {
  const stopped = await recordInstance(app, admin.user.tenant_id, { state: 'stopped', backend: 'kubernetes' })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const create = await useTool(app, token, 'create_instance', { name: 'Production', subdomain: uniqueSubdomain('kube'), erp_version: '17.0', backend: 'kubernetes' })
  const error = assertToolError(t, create, 'INSTANCE_BACKEND_UNAVAILABLE', 'create_instance')
  t.same(error.details, { backend: 'kubernetes' }, 'names the backend, not how to configure it')
  t.equal(error.message, 'Instances on kubernetes cannot run right now: the hosting platform is not ready for them. The operator has been told.')
  t.notMatch(JSON.stringify(error), /KUBECONFIG|INSTANCE_BACKENDS/, 'no setting reaches the agent')
  assertToolError(t, await useTool(app, token, 'start_instance', { instance_id: stopped }), 'INSTANCE_BACKEND_UNAVAILABLE', 'start_instance')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no instance, no state change, no activity')

  const noop = assertToolSuccess(t, await useTool(app, token, 'stop_instance', { instance_id: stopped }), 'stopping a stopped instance')
  t.match(noop, { queued: false, instance: { id: stopped, state: 'stopped' } }, 'nothing to do, so no backend is needed')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'and nothing recorded')
})

docker.test('on Docker: create, poll until running, stop; each change credited to the agent', async (t) => {
  const fixture = await startMcpFixture(t, dockerInstanceEnv(t))
  t.teardown(() => cleanupInstances(fixture.databaseUrl))
  const person = await signup(fixture.app)
  const agent = (await fixture.connectAgent(person, 'Ops agent')).accessToken
  const credited = { kind: 'agent', id: person.user.id, name: `Ops agent for ${await personName(fixture.app, person)}` }
  const subdomain = uniqueSubdomain('mcp')

  const created = assertToolSuccess(t, await useTool(fixture.app, agent, 'create_instance', { name: 'Agent-made', subdomain, erp_version: '17.0', backend: 'docker' }), 'create_instance')
  const id = created.instance.id as string
  t.match(created.instance, { name: 'Agent-made', subdomain, state: 'provisioning', backend: 'docker' })
  t.match(await latestActivity(fixture.app, person, 'instance.created'), { target_id: id, actor: credited })

  const waitFor = async (state: string) => {
    const deadline = Date.now() + 90_000
    let last: Record<string, any> = {}
    while (Date.now() < deadline) {
      last = (await useTool(fixture.app, agent, 'get_instance_status', { instance_id: id })).data.status
      if (last.state === state || last.state === 'error') return last
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return last
  }
  t.match(await waitFor('running'), { id, state: 'running', status: 'running' }, 'provisioned on the engine')

  const stop = assertToolSuccess(t, await useTool(fixture.app, agent, 'stop_instance', { instance_id: id }), 'stop_instance')
  t.match(stop, { queued: true, instance: { id, state: 'stopping' } })
  t.match(await latestActivity(fixture.app, person, 'instance.stopping'), { target_id: id, instance_id: id, actor: credited })
  t.match(await waitFor('stopped'), { state: 'stopped' })
  const container = await docker.docker.getContainer(`erp-${subdomain}`).inspect()
  t.equal(container.State.Running, false, 'the container really stopped')
  const again = assertToolSuccess(t, await useTool(fixture.app, agent, 'stop_instance', { instance_id: id }), 'stop again')
  t.equal(again.queued, false, 'asking twice changes nothing (idempotentHint)')

  for (const [tool, during] of [['start_instance', 'starting'], ['restart_instance', 'restarting']] as const) {
    const outcome = assertToolSuccess(t, await useTool(fixture.app, agent, tool, { instance_id: id }), tool)
    t.match(outcome, { queued: true, instance: { id, state: during } }, `${tool}: queued`)
    t.match(await latestActivity(fixture.app, person, `instance.${during}`), { target_id: id, actor: credited }, `${tool}: credited`)
    t.match(await waitFor('running'), { state: 'running' }, `${tool}: running again`)
  }
})
