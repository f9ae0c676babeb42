/**
 * Every MCP tool, fed hostile values argument by argument (test/hostile/hostile-values.ts).
 * The tools come from tools/list through the MCP SDK's own client over real
 * HTTP with an agent's access token, so a new tool is covered without touching
 * this file. The calls go as raw JSON-RPC text (JSON.stringify would turn
 * 1e309 into null), as the tenant admin's agent.
 *
 * A refused argument is a tool result with isError (never INTERNAL_ERROR) or
 * the protocol's -32602; never -32603, never a 5xx.
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { signup } from '../support/accounts.ts'
import { mcpHeaders, startMcpFixture } from '../support/mcp.ts'
import { HOSTILE, hostileValue, NUMERIC, SEED, type Hostile } from './hostile-values.ts'
import { sampleOf } from './schema-sample.ts'

type Schema = Record<string, any>

const { app, connectAgent } = await startMcpFixture(t)
const person = await signup(app)
const { accessToken: token } = await connectAgent(person, 'Hostile tester')
const RUNS_PER_TOOL = 6

const address = await app.listen({ port: 0, host: '127.0.0.1' })
const client = new Client({ name: 'hostile-test', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
t.teardown(() => client.close())
const { tools } = await client.listTools()

/** What a hostile call must answer; undefined when it does. */
function answerProblem (status: number, body: Record<string, any>): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`
  if (body.error !== undefined) return body.error.code === -32602 ? undefined : `JSON-RPC ${body.error.code}: ${body.error.message}`
  const result = body.result as { isError?: boolean, structuredContent?: Record<string, any> } | undefined
  if (result === undefined) return 'neither a result nor an error'
  if (result.isError === true && result.structuredContent?.error?.code === 'INTERNAL_ERROR') return 'INTERNAL_ERROR'
  return undefined
}

const MARK = '\u0001hostile\u0001'

/** `arguments` as raw JSON text: the hostile value in `field` (or as the whole arguments), plausible values elsewhere. */
function argumentsText (schema: Schema, field: string, value: Hostile): string {
  if (field === '(arguments)') return value.json
  const args: Record<string, unknown> = {}
  for (const [name, child] of Object.entries<Schema>(schema.properties ?? {})) {
    if (name === field) args[name] = MARK
    else if ((schema.required ?? []).includes(name)) args[name] = sampleOf(child, name)
  }
  return JSON.stringify(args).replace(JSON.stringify(MARK), value.json)
}

let nextId = 1
async function call (t: Test, tool: string, schema: Schema, field: string, value: Hostile): Promise<void> {
  const payload = `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argumentsText(schema, field, value)}}}`
  const response = await app.inject({ method: 'POST', url: '/api/mcp', headers: mcpHeaders(token), payload })
  const problem = answerProblem(response.statusCode, response.json())
  if (problem !== undefined) t.fail(`${tool} ${field} = ${value.label}: ${problem}`)
}

const isNumeric = (schema: Schema) => ['integer', 'number'].some((type) => JSON.stringify(schema).includes(`"type":"${type}"`))

t.test('no hostile argument of any tool answers -32603, INTERNAL_ERROR or a 5xx', async (t) => {
  t.ok(tools.length >= 15, `${tools.length} tools from tools/list`)
  let calls = 0
  for (const tool of tools) {
    const schema = tool.inputSchema as Schema
    const properties = Object.entries<Schema>(schema.properties ?? {})
    const fields = ['(arguments)', ...properties.map(([name]) => name)]
    const examples: Array<[string, Hostile]> = properties.filter(([, child]) => isNumeric(child))
      .flatMap(([name]) => NUMERIC.map((value): [string, Hostile] => [name, value]))
    await fc.assert(fc.asyncProperty(fc.constantFrom(...fields), hostileValue, async (field, value) => {
      calls++
      await call(t, tool.name, schema, field, value)
    }), { seed: SEED, numRuns: RUNS_PER_TOOL + examples.length, examples })
  }
  t.pass(`${calls} hostile calls`)
})

t.test('arguments that are not an object are -32602 for every tool', async (t) => {
  const wrong = HOSTILE.filter((value) => !value.json.startsWith('{'))
  for (const tool of tools) {
    const value = wrong[tools.indexOf(tool) % wrong.length] as Hostile
    const payload = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":${value.json}}}`
    const body = (await app.inject({ method: 'POST', url: '/api/mcp', headers: mcpHeaders(token), payload })).json()
    t.equal(body.error?.code, -32602, `${tool.name} with arguments ${value.label}: ${body.error?.message ?? JSON.stringify(body).slice(0, 200)}`)
  }
})
