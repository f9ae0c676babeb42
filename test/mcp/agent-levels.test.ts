/**
 * Least privilege, as a property: for every agent level and every tool, a tool
 * above the level is missing from tools/list and refused when called by name,
 * whatever the arguments, and the refusal changes nothing in the company's
 * data. The MCP SDK's own Client, over real HTTP, against /api/mcp.
 */
import t from 'tap'
import fc from 'fast-check'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { AGENT_LEVELS, levelAllows, type AgentLevel } from '../../lib/agent-access.ts'
import { AGENT_CAPABILITIES, capabilityLevel } from '../../lib/agent-capabilities.ts'
import { ALL_TOOLS } from '../../mcp/tools/index.ts'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { tenantSnapshot } from './tool-helpers.ts'

const fixture = await startMcpFixture(t)
const { app } = fixture
await app.listen({ port: 0, host: '127.0.0.1' })
const endpoint = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/mcp`)
const person = await signup(app)
const instanceId = await recordInstance(app, person.user.tenant_id)

async function sdkClient (level: AgentLevel): Promise<Client> {
  const agent = await fixture.connectAgent(person, `Agent ${level}`, { level, instanceIds: null })
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${agent.accessToken}` } } })
  const client = new Client({ name: `levels-${level}`, version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

const clients = Object.fromEntries(await Promise.all(AGENT_LEVELS.map(async (level) => [level, await sdkClient(level)] as const))) as Record<AgentLevel, Client>
const listed = Object.fromEntries(await Promise.all(AGENT_LEVELS.map(async (level) =>
  [level, new Set((await clients[level].listTools()).tools.map((tool) => tool.name))] as const))) as Record<AgentLevel, Set<string>>
const toolNames = ALL_TOOLS.map((tool) => tool.name)

t.test('every tool has exactly one declared level, and each level lists what it allows', async (t) => {
  t.same(Object.keys(AGENT_CAPABILITIES).sort(), [...toolNames].sort(), 'the declaration covers every tool and nothing else')
  t.same([...listed.administer].sort(), [...toolNames].sort(), 'an admin\'s administering agent sees every tool')
  t.ok(listed.read.has('list_instances') && !listed.read.has('stop_instance'), 'read lists reads, not writes')
  t.ok(listed.operate.has('stop_instance') && !listed.operate.has('delete_backup'), 'operate lists lifecycle, not deletion')
})

t.test('a tool above the grant\'s level is not listed, is refused by name with the level it needs, and changes nothing', async (t) => {
  const refusals = fc.record({
    level: fc.constantFrom<AgentLevel>('read', 'operate'),
    tool: fc.constantFrom(...toolNames),
    args: fc.oneof(
      fc.constant({ instance_id: instanceId }),
      fc.record({ instance_id: fc.integer({ min: 1, max: 1_000_000 }), confirm: fc.string() }, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
    )
  })
  let checked = 0
  await fc.assert(fc.asyncProperty(refusals, async ({ level, tool, args }) => {
    const needed = capabilityLevel(tool)!
    const allowed = levelAllows(level, needed)
    if (listed[level].has(tool) !== allowed) return false
    if (allowed) return true
    const before = await tenantSnapshot(app, person.user.tenant_id)
    const answer = await clients[level].callTool({ name: tool, arguments: args as Record<string, unknown> }) as { isError?: boolean, structuredContent?: any }
    const error = answer.structuredContent?.error
    checked++
    return answer.isError === true && error?.code === 'AGENT_LEVEL_TOO_LOW' &&
      error.message.includes(needed === 'administer' ? '"Administer"' : '"Operate"') && error.message.includes('/api/oauth/grants/') &&
      before === await tenantSnapshot(app, person.user.tenant_id)
  }), { numRuns: 80 })
  t.ok(checked > 10, `refusals were exercised (${checked})`)
})

t.test('a member\'s agent never administers, whatever its grant says', async (t) => {
  const member = await addMember(app, person.user.tenant_id, { role: 'user' })
  const agent = await fixture.connectAgent(member, 'Member agent', { level: 'administer', instanceIds: null })
  const client = new Client({ name: 'member', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${agent.accessToken}` } } }))
  t.teardown(() => client.close())
  const names = new Set((await client.listTools()).tools.map((tool) => tool.name))
  for (const tool of toolNames) t.equal(names.has(tool), capabilityLevel(tool) !== 'administer', `${tool}: listed only below administer`)
})
