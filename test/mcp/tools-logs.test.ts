import t from 'tap'
import { signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

// The Kubernetes backend on the fake API server: real pod log reads through the real client.
const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0 })
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, kubeBackendEnv(t, kube.kubeconfigText))
t.teardown(() => cleanupInstances(databaseUrl))
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Log agent')

t.test('get_instance_logs: the same lines as GET /logs, with tail and since', async (t) => {
  const subdomain = uniqueSubdomain('mcplog')
  const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Logs', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const id: number = created.data.instance.id
  await waitForState(app, admin.token, id, ['running'])
  kube.setPodLogs(`erp-${admin.subdomain}`, `erp-${subdomain}`, 'one\ntwo\nthree\n')

  const { logs } = assertToolSuccess(t, await useTool(app, token, 'get_instance_logs', { instance_id: id }), 'get_instance_logs')
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${id}/logs`)
  t.same(logs, { instance_id: id, lines: rest.data.lines }, 'what the route answers')
  t.same(logs.lines.map((l: { line: string }) => l.line), ['one', 'two', 'three'])
  const tail = assertToolSuccess(t, await useTool(app, token, 'get_instance_logs', { instance_id: id, tail: 2 }), 'tail')
  t.same(tail.logs.lines.map((l: { line: string }) => l.line), ['two', 'three'])
  const later = new Date(Date.now() + 60_000).toISOString()
  const since = assertToolSuccess(t, await useTool(app, token, 'get_instance_logs', { instance_id: id, since: later }), 'since')
  t.same(since.logs.lines, [])
})

t.test('another company\'s instance is INSTANCE_NOT_FOUND; a deleted one answers no lines and why; bad arguments name the field', async (t) => {
  const other = await signup(app)
  const theirs = await recordInstance(app, other.user.tenant_id, { backend: 'kubernetes' })
  assertToolError(t, await useTool(app, token, 'get_instance_logs', { instance_id: theirs }), 'INSTANCE_NOT_FOUND')
  const deleted = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'deleted' })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const { logs } = assertToolSuccess(t, await useTool(app, token, 'get_instance_logs', { instance_id: deleted }), 'deleted')
  t.same(logs.lines, [])
  t.match(logs.message, /deleted/)
  for (const [args, field] of [
    [{ instance_id: deleted, tail: 5001 }, 'tail'],
    [{ instance_id: deleted, tail: 0 }, 'tail'],
    [{ instance_id: deleted, since: 'yesterday' }, 'since'],
    [{ tail: 10 }, 'instance_id']
  ] as const) {
    const error = assertToolError(t, await useTool(app, token, 'get_instance_logs', args), 'VALIDATION_FAILED', JSON.stringify(args))
    t.match(error.details.fields, [{ field }], field)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'reads record nothing')
})
