/**
 * uninstall_module: destructive, so an Administer grant, an admin, and the instance's subdomain in
 * `confirm`; the service's own refusals (what depends on the module) come before the person is
 * asked. A confirmed call uninstalls through the same service as REST, and a client with a
 * progressToken (the MCP SDK's Client over real HTTP) is answered at the end state. The Kubernetes
 * backend of the fake API server, whose ERP uninstalls as Odoo 17 does.
 */
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { addMember, signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { waitFor } from '../support/kube/client-helpers.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { assertToolError, assertToolSuccess, latestActivity, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0, erpTiming: { installMs: 300, reloadMs: 200 } })
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, { ...kubeBackendEnv(t, kube.kubeconfigText), MCP_PROGRESS_MAX_SECONDS: 30 })
t.teardown(() => cleanupInstances(databaseUrl))
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Careful agent')

const subdomain = uniqueSubdomain('unm')
const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Shop', subdomain, erp_version: '17.0', backend: 'kubernetes' })
const id = created.data.instance.id as number
await waitForState(app, admin.token, id, ['running'])
const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
const moduleId = (name: string): number => catalog.find((m) => m.technical_name === name)?.id ?? 0
const stateOf = async (name: string) => (await restCall(app, admin.token, 'GET', `/api/instances/${id}/modules`)).data.modules
  .find((m: { technical_name: string }) => m.technical_name === name)?.state as string | undefined
for (const name of ['contacts', 'mail']) {
  const assigned = await restCall(app, admin.token, 'POST', `/api/instances/${id}/modules`, { module_id: moduleId(name) })
  if (assigned.status !== 202) throw new Error(`installing ${name}: ${JSON.stringify(assigned.data)}`)
  await waitFor(async () => await stateOf(name) === 'installed', { timeoutMs: 30_000, intervalMs: 100 })
}

t.test('refused below Administer, for a member, without confirm or with another value; nothing changes', async (t) => {
  const args = { instance_id: id, module_id: moduleId('contacts'), confirm: subdomain }
  const operator = await connectAgent(admin, 'Operating agent', { level: 'operate', instanceIds: null })
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent', { level: 'operate', instanceIds: null })
  const other = await signup(app)
  const otherAgent = await connectAgent(other, 'Other agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const low = assertToolError(t, await useTool(app, operator.accessToken, 'uninstall_module', args), 'AGENT_LEVEL_TOO_LOW', 'an Operate grant')
  t.same(low.details, { needed: 'administer', granted: 'operate' })
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'uninstall_module', args), 'FORBIDDEN', 'a member')
  const missing = assertToolError(t, await useTool(app, token, 'uninstall_module', { instance_id: id, module_id: moduleId('contacts') }), 'CONFIRMATION_REQUIRED', 'no confirm')
  t.match(missing.message, /^Uninstalling the module removes it and the data it holds from the instance's ERP\. Ask the person first; if they agree, call uninstall_module again with `confirm`/)
  assertToolError(t, await useTool(app, token, 'uninstall_module', { ...args, confirm: `${subdomain}-x` }), 'CONFIRMATION_REFUSED', 'another value')
  const required = assertToolError(t, await useTool(app, token, 'uninstall_module', { instance_id: id, module_id: moduleId('mail') }), 'MODULE_REQUIRED_BY', 'what depends on it, before asking the person')
  t.same(required.details, { field: 'module_id', required_by: ['contacts'] })
  assertToolError(t, await useTool(app, otherAgent.accessToken, 'uninstall_module', args), 'INSTANCE_NOT_FOUND', 'another company')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no state change, no job, no activity')
  t.equal(await stateOf('contacts'), 'installed')
  t.equal(await stateOf('mail'), 'installed')
  const [jobs] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'erp-module-uninstalls'", values: [] })
  t.equal(jobs?.n, 0, 'no uninstall queued')
})

t.test('confirmed, with a progressToken: answered once the module is uninstalled; asking again is refused', async (t) => {
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const transport = new StreamableHTTPClientTransport(new URL(`${address}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  const client = new Client({ name: 'uninstall-test', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  const updates: Progress[] = []
  const result = await client.callTool({ name: 'uninstall_module', arguments: { instance_id: id, module_id: moduleId('contacts'), confirm: subdomain } },
    undefined, { onprogress: (update) => { updates.push(update) } }) as { isError?: boolean, structuredContent: Record<string, any> }
  t.notOk(result.isError, JSON.stringify(result.structuredContent))
  t.match(result.structuredContent, { queued: true, module: { technical_name: 'contacts', state: 'uninstalled' }, wait: { finished: true } })
  t.ok(updates.length >= 1 && updates.some((update) => /Module contacts uninstall/.test(update.message ?? '')), 'progress said what goes on')
  t.equal(await stateOf('contacts'), 'uninstalled')
  t.match(await latestActivity(app, admin, 'instance_module.uninstall_requested'), { actor: { kind: 'agent', id: admin.user.id } })
  t.ok(await latestActivity(app, admin, 'instance_module.uninstalled'))
  const again = await useTool(app, token, 'uninstall_module', { instance_id: id, module_id: moduleId('contacts'), confirm: subdomain })
  assertToolError(t, again, 'MODULE_NOT_INSTALLED', 'already uninstalled')
  // Now nothing installed depends on mail: without a progressToken, answered at once.
  const mail = assertToolSuccess(t, await useTool(app, token, 'uninstall_module', { instance_id: id, module_id: moduleId('mail'), confirm: subdomain }), 'mail')
  t.match(mail, { queued: true, module: { technical_name: 'mail', state: 'uninstalling' } })
  await waitFor(async () => await stateOf('mail') === 'uninstalled', { timeoutMs: 30_000, intervalMs: 100 })
})
