/**
 * MCP_AUDIT_READS=refused: a read-only tool's successful call leaves no row in
 * the audit trail; its refusals and failures do, and every other tool's call
 * does whatever its outcome.
 */
import fc from 'fast-check'
import t from 'tap'
import { AGENT_CAPABILITIES } from '../../lib/agent-capabilities.ts'
import { isRecorded } from '../../mcp/tool-audit.ts'
import { signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, useTool } from './tool-helpers.ts'

t.test('the rule, for every tool and outcome', async () => {
  const tools = Object.keys(AGENT_CAPABILITIES) as Array<keyof typeof AGENT_CAPABILITIES>
  fc.assert(fc.property(fc.constantFrom(...tools), fc.constantFrom('ok', 'INSTANCE_NOT_FOUND', 'AGENT_LEVEL_TOO_LOW', 'input_required'), (tool, outcome) => {
    if (!isRecorded({ tool, outcome }, 'all')) throw new Error(`all: ${tool} ${outcome} not recorded`)
    const expected = outcome !== 'ok' || AGENT_CAPABILITIES[tool] !== 'read'
    if (isRecorded({ tool, outcome }, 'refused') !== expected) throw new Error(`refused: ${tool} ${outcome}`)
  }))
})

t.test('through /api/mcp', async (t) => {
  const fixture = await startMcpFixture(t, { MCP_AUDIT_READS: 'refused' })
  const { app } = fixture
  const admin = await signup(app)
  const instance = await recordInstance(app, admin.user.tenant_id, { name: 'Shop' })
  const agent = await fixture.connectAgent(admin, 'Quiet agent', { level: 'read', instanceIds: null })
  // Successful reads would wait in the audit buffer: written first, so that "no row" means none was queued either.
  const tools = async () => {
    await app.mcpAudit.flush()
    return (await app.sql<{ tool: string, outcome: string }>({
      text: 'SELECT tool, outcome FROM agent_tool_calls WHERE grant_id = $1 ORDER BY created_at, id', values: [agent.grantId]
    })).map((row) => `${row.tool} ${row.outcome}`)
  }

  assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: instance }), 'a status poll')
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'list_instances'), 'a list')
  t.same(await tools(), [], 'successful reads leave no row')
  assertToolError(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: 999_999 }), 'INSTANCE_NOT_FOUND', 'a read that fails')
  assertToolError(t, await useTool(app, agent.accessToken, 'stop_instance', { instance_id: instance }), 'AGENT_LEVEL_TOO_LOW', 'a write above the level')
  t.same(await tools(), ['get_instance INSTANCE_NOT_FOUND', 'stop_instance AGENT_LEVEL_TOO_LOW'], 'failures and refusals are recorded')
})
