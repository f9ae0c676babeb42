/**
 * Destructive tools ask for the instance's subdomain in `confirm` (the stateless endpoint cannot
 * ask the client itself: docs/agents.md). delete_instance on the Kubernetes backend of the fake API
 * server, so a confirmed delete really runs; every refusal leaves the company's data as it was.
 */
import t from 'tap'
import fc from 'fast-check'
import { addMember, signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, latestActivity, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0 })
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, kubeBackendEnv(t, kube.kubeconfigText))
t.teardown(() => cleanupInstances(databaseUrl))
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Careful agent')

async function runningInstance (prefix: string): Promise<{ id: number, subdomain: string }> {
  const subdomain = uniqueSubdomain(prefix)
  const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Keep me', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const id = created.data.instance.id as number
  await waitForState(app, admin.token, id, ['running'])
  return { id, subdomain }
}

t.test('delete_instance without confirm, with another value, or by a member changes nothing; confirmed, it deletes', async (t) => {
  const { id, subdomain } = await runningInstance('del')
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const operator = await connectAgent(admin, 'Operating agent', { level: 'operate', instanceIds: null })
  const before = await tenantSnapshot(app, admin.user.tenant_id)

  const missing = assertToolError(t, await useTool(app, token, 'delete_instance', { instance_id: id }), 'CONFIRMATION_REQUIRED', 'no confirm')
  t.equal(missing.message, 'Deleting the instance removes its ERP, its database and its files for good. Ask the person first; if they agree, ' +
    'call delete_instance again with `confirm` set to the instance\'s subdomain (get_instance shows it). Nothing was changed.')
  t.same(missing.details, { field: 'confirm' })
  const wrong = assertToolError(t, await useTool(app, token, 'delete_instance', { instance_id: id, confirm: `${subdomain}x` }), 'CONFIRMATION_REFUSED', 'another value')
  t.match(wrong.message, `confirm must be the instance's subdomain "${subdomain}"`)
  assertToolError(t, await useTool(app, token, 'delete_instance', { instance_id: id, confirm: subdomain.toUpperCase() }), 'CONFIRMATION_REFUSED', 'case matters')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'delete_instance', { instance_id: id, confirm: subdomain }), 'FORBIDDEN', 'a member, confirmed')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'delete_instance', { instance_id: id }), 'FORBIDDEN', 'a member: the role before the confirmation')
  assertToolError(t, await useTool(app, operator.accessToken, 'delete_instance', { instance_id: id, confirm: subdomain }), 'AGENT_LEVEL_TOO_LOW', 'an Operate grant')
  const other = await signup(app)
  const otherAgent = await connectAgent(other, 'Other agent')
  assertToolError(t, await useTool(app, otherAgent.accessToken, 'delete_instance', { instance_id: id, confirm: subdomain }), 'INSTANCE_NOT_FOUND', 'another company')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no state change, no job, no activity')
  t.equal((await restCall(app, admin.token, 'GET', `/api/instances/${id}/status`)).data.state, 'running', 'it still runs')
  t.ok(kube.get('Deployment', `erp-${admin.subdomain}`, `erp-${subdomain}`), 'its deployment is still there')

  const deleted = assertToolSuccess(t, await useTool(app, token, 'delete_instance', { instance_id: id, confirm: subdomain }), 'confirmed')
  t.match(deleted, { queued: true, instance: { id, state: 'deleting' } })
  await waitForState(app, admin.token, id, ['deleted'])
  t.match(await latestActivity(app, admin, 'instance.deleting'), { actor: { kind: 'agent', id: admin.user.id } })
  t.match(assertToolSuccess(t, await useTool(app, token, 'delete_instance', { instance_id: id, confirm: subdomain }), 'again'), { queued: false, instance: { state: 'deleted' } })
})

t.test('any confirm but the subdomain is refused, and changes nothing (property)', async (t) => {
  const subdomain = `keep-${process.pid}`
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'stopped', subdomain })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  await fc.assert(fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }).filter((value) => value !== subdomain && !value.includes('\u0000')), async (confirm) => {
    const outcome = await useTool(app, token, 'delete_instance', { instance_id: id, confirm })
    return outcome.isError && outcome.data.error.code === 'CONFIRMATION_REFUSED'
  }), { numRuns: 25 })
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('restore_backup without confirm is CONFIRMATION_REQUIRED and changes nothing', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'stopped' })
  const [row] = await app.sql<{ id: string }>({
    text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, created_at, updated_at) VALUES ($1, $2, 'completed', 'manual', '17.0', 1, now(), now()) RETURNING id",
    values: [admin.user.tenant_id, id]
  })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const error = assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: id, backup_id: Number(row!.id) }), 'CONFIRMATION_REQUIRED')
  t.match(error.message, /^Restoring backup #\d+ replaces the instance's database and filestore; what changed since the backup is lost\. Ask the person first/)
  assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: id, backup_id: Number(row!.id) + 1000 }), 'BACKUP_NOT_FOUND', 'no such backup')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('delete_instance with a progressToken follows the instance to deleted', async (t) => {
  const { id, subdomain } = await runningInstance('delp')
  const response = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'delete_instance', arguments: { instance_id: id, confirm: subdomain }, _meta: { progressToken: 9 } } }
  })
  const events = response.body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  t.ok(events.some((event) => event.method === 'notifications/progress' && event.params.progressToken === 9), 'progress sent')
  t.match(events.at(-1), { id: 7, result: { structuredContent: { queued: true, instance: { id, state: 'deleted' }, wait: { finished: true } } } })
})
