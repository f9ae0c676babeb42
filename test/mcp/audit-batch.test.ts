/**
 * The audit trail off the request's path for reads: a read-only tool's successful
 * call waits in memory and is written with the others as one INSERT (on a full
 * batch, after MCP_AUDIT_FLUSH_MS, on flush or when the app closes), keeping its
 * own time; writes, refusals and failures are in the table when the call answers.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { UserActor } from '../../lib/actor.ts'
import { createReadAuditBuffer } from '../../mcp/read-audit-buffer.ts'
import { recordToolCalls, type ToolCallRow } from '../../mcp/tool-audit.ts'
import { bearer, signup } from '../support/accounts.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { statementsDuring } from '../support/statements.ts'
import { assertToolError, assertToolSuccess, useTool } from './tool-helpers.ts'

// A minute: no timer fires during a test, so only a flush (or a full batch, or close) writes reads.
const fixture = await startMcpFixture(t, { MCP_AUDIT_FLUSH_MS: 60_000 })
const { app } = fixture
const admin = await signup(app)
const instance = await recordInstance(app, admin.user.tenant_id, { name: 'Shop' })

interface Row { tool: string, outcome: string, arguments: Record<string, unknown>, created_at: string | Date }
const rowsOf = async (grantId: string) => app.sql<Row>({
  text: 'SELECT tool, outcome, arguments, created_at FROM agent_tool_calls WHERE grant_id = $1 ORDER BY created_at, id', values: [grantId]
})
/** The audit INSERTs among the statements sent: single rows and batches. */
const inserts = (statements: string[]) => ({
  single: statements.filter((label) => label === 'mcp-record-tool-call').length,
  batch: statements.filter((label) => label === 'mcp-record-tool-calls').length
})

t.test('reads are written after a flush, with their own times and arguments, as one INSERT', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Reader')
  const windows: Array<[number, number]> = []
  for (const [tool, args] of [['get_instance_status', { instance_id: instance }], ['list_instances', {}], ['whoami', {}]] as const) {
    const before = Date.now()
    assertToolSuccess(t, await useTool(app, agent.accessToken, tool, args), tool)
    windows.push([before, Date.now()])
    await sleep(20)
  }
  t.same(await rowsOf(agent.grantId), [], 'answered, not yet written')

  const flushedAt = Date.now()
  const statements = await statementsDuring(app, () => app.mcpAudit.flush())
  t.same(inserts(statements), { single: 0, batch: 1 }, 'three reads, one INSERT')
  const rows = await rowsOf(agent.grantId)
  t.same(rows.map((row) => [row.tool, row.outcome]), [['get_instance_status', 'ok'], ['list_instances', 'ok'], ['whoami', 'ok']], 'each read, in the order made')
  t.same(rows[0]?.arguments, { instance_id: instance }, 'the arguments summary')
  rows.forEach((row, index) => {
    const at = new Date(row.created_at).getTime()
    t.ok(at >= windows[index]![0] && at <= windows[index]![1], `${row.tool}: the time of its call, not of the flush`)
    t.ok(at < flushedAt, `${row.tool}: before the flush`)
  })
  const grant = (await app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(admin.token) })).json().grants
    .find((g: { id: string }) => g.id === agent.grantId)
  t.equal(Date.parse(grant.last_used_at), new Date(rows[2]!.created_at).getTime(), 'last_used_at: the last read\'s own time')
  t.same(inserts(await statementsDuring(app, () => app.mcpAudit.flush())), { single: 0, batch: 0 }, 'nothing queued: a flush sends nothing')
})

t.test('a burst of reads becomes one INSERT', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Busy reader')
  const statements = await statementsDuring(app, async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, async () => useTool(app, agent.accessToken, 'get_instance_status', { instance_id: instance })))
    t.ok(answers.every((answer) => !answer.isError), 'every poll answered')
    await app.mcpAudit.flush()
  })
  t.same(inserts(statements), { single: 0, batch: 1 }, 'no INSERT per call, one for the burst')
  t.equal((await rowsOf(agent.grantId)).length, 25, 'every call recorded')
})

t.test('writes, refusals and failures are in the table when the call answers; a read queued before them is listed before them', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Writer')
  const reader = await fixture.connectAgent(admin, 'Read-only', { level: 'read', instanceIds: null })
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'whoami'), 'a read first')
  await sleep(5)
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'create_ticket', { subject: 'Slow shop', description: 'The shop is slow today.' }), 'a write')
  t.same((await rowsOf(agent.grantId)).map((row) => `${row.tool} ${row.outcome}`), ['create_ticket ok'], 'the write at once; the read still queued')
  assertToolError(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: 999_999 }), 'INSTANCE_NOT_FOUND', 'a failed read')
  t.same((await rowsOf(agent.grantId)).map((row) => `${row.tool} ${row.outcome}`), ['create_ticket ok', 'get_instance INSTANCE_NOT_FOUND'], 'the failure at once')
  assertToolError(t, await useTool(app, reader.accessToken, 'stop_instance', { instance_id: instance }), 'AGENT_LEVEL_TOO_LOW', 'a refused write')
  t.same((await rowsOf(reader.grantId)).map((row) => `${row.tool} ${row.outcome}`), ['stop_instance AGENT_LEVEL_TOO_LOW'], 'the refusal at once')

  await app.mcpAudit.flush()
  const listed = (await app.inject({ method: 'GET', url: `/api/oauth/grants/${agent.grantId}/calls`, headers: bearer(admin.token) })).json().calls
  t.same(listed.map((call: { tool: string }) => call.tool), ['get_instance', 'create_ticket', 'whoami'], 'newest first by the time of the call, though the read was inserted last')
})

t.test('closing the app writes what is queued', async (t) => {
  const closing = await startMcpFixture(t, { MCP_AUDIT_FLUSH_MS: 60_000 })
  const person = await signup(closing.app)
  const agent = await closing.connectAgent(person, 'Last reader')
  assertToolSuccess(t, await useTool(closing.app, agent.accessToken, 'whoami'), 'whoami')
  const count = async () => (await closing.app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM agent_tool_calls WHERE grant_id = $1', values: [agent.grantId] }))[0]?.n
  t.equal(await count(), 0, 'queued')
  await closing.app.close()
  t.equal(await count(), 1, 'written by onClose (the pool is still open: it closes after the app)')
})

t.test('the buffer: full batches at once, the timer, failed writes and its bound', async (t) => {
  const actor: UserActor = { kind: 'agent', userId: admin.user.id, tenantId: admin.user.tenant_id, role: 'admin', email: admin.email, name: 'Admin', sessionId: 'buffer-unit', clientId: 'unit', clientName: 'Unit' }
  const row = (n: number): ToolCallRow => ({ actor, call: { tool: 'whoami', arguments: { n }, outcome: 'ok', durationMs: 1 }, at: new Date() })
  // (Sorted by their number: two batches written at once on two connections interleave their ids.)
  const written = async () => (await app.sql<{ n: number }>({ text: "SELECT (arguments->>'n')::int AS n FROM agent_tool_calls WHERE grant_id = 'buffer-unit' ORDER BY 1", values: [] })).map((r) => r.n)
  const logged: string[] = []
  const log = { error: (_details: Record<string, unknown>, message: string) => { logged.push(message) } }

  const batched = createReadAuditBuffer({ write: async (rows) => recordToolCalls(app.sql, rows), log, delayMs: 60_000, batchRows: 3 })
  const statements = await statementsDuring(app, async () => {
    for (let n = 1; n <= 7; n++) batched.add(row(n))
    t.equal(batched.pending, 7, 'two full batches being written, one row queued')
    await sleep(100)
    t.same(await written(), [1, 2, 3, 4, 5, 6], 'full batches written without a flush or a timer')
    await batched.flush()
  })
  t.equal(inserts(statements).batch, 3, 'three INSERTs: 3 + 3 + 1 rows')
  t.same(await written(), [1, 2, 3, 4, 5, 6, 7])

  const timed = createReadAuditBuffer({ write: async (rows) => recordToolCalls(app.sql, rows), log, delayMs: 30 })
  timed.add(row(8))
  timed.add(row(9))
  t.equal(timed.pending, 2)
  for (let waited = 0; timed.pending > 0 && waited < 5000; waited += 10) await sleep(10)
  t.same((await written()).slice(-2), [8, 9], 'written by the timer, no flush')

  const failing = createReadAuditBuffer({ write: async () => { throw new Error('database down') }, log, delayMs: 60_000 })
  failing.add(row(10))
  await failing.flush()
  t.same(logged, ['MCP audit: a batch of read calls could not be recorded'], 'a failed write is logged; flush does not throw')
  t.equal(failing.pending, 0, 'and its rows are not retried')

  logged.length = 0
  let release = () => {}
  const stuck = new Promise<void>((resolve) => { release = resolve })
  const slow = createReadAuditBuffer({ write: async () => stuck, log, delayMs: 60_000, batchRows: 2, maxPending: 5 })
  for (let n = 0; n < 8; n++) slow.add(row(n))
  t.equal(slow.pending, 5, 'bounded: past five rows waiting, new ones are dropped')
  t.same(logged, ['MCP audit: too many read calls waiting to be recorded; dropping new ones'], 'logged once, not per row')
  release()
  await slow.flush()
  slow.add(row(99))
  t.match(logged[1], /dropped/, 'when rows are taken again, how many were dropped is logged')
  await slow.close()
  t.equal(slow.pending, 0)
})
