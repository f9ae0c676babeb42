/**
 * PostgreSQL goes away for ten seconds under load, and comes back. The service (`node server.ts`,
 * job workers on) runs against an embedded PostgreSQL of this test's own, so stopping it touches
 * nothing else. While it is gone: readiness answers 503, every request is answered promptly with a
 * 503 in the envelope (none hangs, none is a 500), and the process stays up. When it is back:
 * readiness and requests recover without a restart, and the e-mail jobs queued just before the
 * outage are each delivered exactly once.
 */
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../database/embedded.ts'
import { freePort, startServer, waitForReady } from '../support/process.ts'

const OUTAGE_MS = 10_000
/** A request that takes longer than this during the outage counts as hanging. */
const PROMPT_MS = 8_000

interface Answer { at: number, status: number, code?: string, ms: number, phase: 'before' | 'outage' | 'after' }

const root = await mkdtemp(join(tmpdir(), 'erp-portal-outage-'))
await chmod(root, 0o755) // PostgreSQL runs as the `postgres` user when the tests run as root
t.teardown(() => rm(root, { recursive: true, force: true }))
const pgOptions = { dataDir: join(root, 'pg'), port: await freePort(), database: 'outage' }
let database: EmbeddedDatabase | undefined = await startEmbeddedPostgres(pgOptions)
t.teardown(async () => { await database?.stop() })

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const dataDir = join(root, 'app')
const server = startServer({
  PORT: String(port),
  DATA_DIR: dataDir,
  DATABASE_URL: database.url,
  BASE_URL: base,
  SEED_DEMO: 'false',
  // A failed delivery is retried quickly, so the test sees the mail soon after the outage.
  MAIL_RETRY_SECONDS: '1'
})
t.teardown(() => { server.child.kill('SIGKILL') })
await waitForReady(`${base}/health/ready`, server)

async function call (method: string, path: string, token?: string, body?: unknown): Promise<{ status: number, json: any, ms: number }> {
  const started = Date.now()
  const headers: Record<string, string> = {}
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  try {
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) })
    const text = await response.text()
    let json: unknown
    try { json = JSON.parse(text) } catch { json = text }
    return { status: response.status, json, ms: Date.now() - started }
  } catch (error) {
    return { status: 0, json: String(error), ms: Date.now() - started }
  }
}

const signup = await call('POST', '/api/signup', undefined, {
  company: 'Outage Company', subdomain: 'outage-co', name: 'Olga Admin', email: 'olga@outage.example.com', password: 'correct horse battery staple'
})
t.equal(signup.status, 201, JSON.stringify(signup.json))
const token = signup.json.token as string

const mailRecipients = async (): Promise<string[]> => {
  const folder = join(dataDir, 'mail')
  const files = (await readdir(folder).catch(() => [] as string[])).filter((file) => file.endsWith('.eml'))
  const recipients = await Promise.all(files.map(async (file) => /^To: .*?([\w.+-]+@[\w.-]+)/m.exec(await readFile(join(folder, file), 'utf8'))?.[1] ?? file))
  return recipients.filter((address) => address.endsWith('@invitee.example.com')).sort()
}

t.test('ten seconds without PostgreSQL under load: prompt 503s, then a full recovery with every job run once', async (t) => {
  // Invitations whose e-mails are queued just before the database goes away.
  const invitees = ['ann', 'ben', 'cat'].map((name) => `${name}@invitee.example.com`)
  for (const email of invitees) {
    const invited = await call('POST', '/api/users/invite', token, { email, name: email.split('@')[0], role: 'user' })
    t.equal(invited.status, 201, JSON.stringify(invited.json))
  }

  const answers: Answer[] = []
  let phase: Answer['phase'] = 'before'
  let loading = true
  const paths = ['/api/me', '/api/instances', '/api/activity?limit=5']
  const load = Array.from({ length: 6 }, async (_, worker) => {
    for (let i = 0; loading; i++) {
      const requestPhase = phase
      const answer = await call('GET', paths[(worker + i) % paths.length]!, token)
      answers.push({ at: Date.now(), status: answer.status, code: answer.json?.error?.code, ms: answer.ms, phase: requestPhase })
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })

  await new Promise((resolve) => setTimeout(resolve, 1_000))
  phase = 'outage'
  const stopped = Date.now()
  await database!.stop()
  database = undefined

  const ready = await call('GET', '/health/ready')
  t.equal(ready.status, 503, 'readiness goes false')
  t.equal(ready.json?.error?.code, 'NOT_READY')
  t.equal((await call('GET', '/health/live')).status, 200, 'liveness stays true: a restart would not help')

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stopped))))
  database = await startEmbeddedPostgres(pgOptions)
  const restarted = Date.now()
  phase = 'after'

  let recoveredAt: number | undefined
  while (Date.now() - restarted < 60_000) {
    if ((await call('GET', '/health/ready')).status === 200 && (await call('GET', '/api/me', token)).status === 200) {
      recoveredAt = Date.now()
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  t.ok(recoveredAt !== undefined, 'ready again without a restart')
  t.comment(`recovered ${recoveredAt! - restarted} ms after PostgreSQL came back`)
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  loading = false
  await Promise.all(load)

  const kinds = (list: Answer[]) => Object.fromEntries(Array.from(Map.groupBy(list, (answer) => `${answer.status} ${answer.code ?? ''}`.trim()), ([kind, group]) => [kind, group.length]))
  const during = answers.filter((answer) => answer.phase === 'outage')
  t.ok(during.length > 10, `${during.length} requests during the outage`)
  const failed = during.filter((answer) => answer.status !== 200)
  t.ok(failed.length > 0, 'the outage was seen')
  t.comment(`during the outage: ${JSON.stringify(kinds(during))}`)
  t.same(Object.keys(kinds(failed)), ['503 DATABASE_UNAVAILABLE'], `each failure is 503 DATABASE_UNAVAILABLE in the envelope: ${JSON.stringify(kinds(failed))}`)
  t.equal(answers.filter((answer) => answer.ms > PROMPT_MS).length, 0, `no request took over ${PROMPT_MS} ms (slowest ${Math.max(...answers.map((answer) => answer.ms))} ms)`)
  t.equal(answers.filter((answer) => answer.status >= 500 && answer.status !== 503).length, 0, `never a 500: ${JSON.stringify(kinds(answers))}`)
  const lastTwoSeconds = answers.filter((answer) => answer.at > recoveredAt! + 500)
  t.ok(lastTwoSeconds.length > 0 && lastTwoSeconds.every((answer) => answer.status === 200), 'after the recovery everything answers 200')
  t.equal(server.child.exitCode, null, 'the process never exited')

  // Every queued e-mail arrives once, the jobs having waited out the outage.
  let recipients: string[] = []
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    recipients = await mailRecipients()
    if (recipients.length >= invitees.length) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000)) // room for a duplicate to show up
  t.same(await mailRecipients(), invitees.sort(), 'each invitation e-mail delivered exactly once')

  const after = await call('POST', '/api/users/invite', token, { email: 'dan@invitee.example.com', name: 'Dan', role: 'user' })
  t.equal(after.status, 201, 'writes work again')
})
