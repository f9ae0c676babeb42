import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, TEST_JWT_SECRET } from '../../../support/build.ts'
import { addMember, bearer, signup, type SignedUp } from '../../../support/accounts.ts'
import { dockerClient, requireDockerOrSkipLoudly, testImage } from '../../../support/docker/engine.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { openSse, type SseConnection, type SseEvent } from '../../../support/sse.ts'
import { deriveKey } from '../../../../lib/secrets.ts'
import { createStreamTokens } from '../../../../plugins/app/logs/stream-token.ts'

const docker = await requireDockerOrSkipLoudly(t)

/** The ticking test image under a tag of this file's own, so no other test's tagging swaps it. */
async function tagLogImage (): Promise<void> {
  await dockerClient().getImage(await testImage()).tag({ repo: 'erp-test-logs', tag: '17.0' })
}

interface Line { id: string, time: string, stream: string, line: string }
const tickOf = (line: string): number | undefined => { const m = /^erp-test-image: tick (\d+)$/.exec(line); return m === null ? undefined : Number(m[1]) }
const data = (event: SseEvent): Line => JSON.parse(event.data) as Line
const isTick = (event: SseEvent): boolean => event.event === 'message' && tickOf(data(event).line) !== undefined
const ticks = (events: SseEvent[]): number[] => events.filter(isTick).map((e) => tickOf(data(e).line)!)
const consecutive = (numbers: number[]): boolean => numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readLogs (app: FastifyInstance, token: string, id: number, query = ''): Promise<Line[]> {
  const response = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs${query}`, headers: bearer(token) })
  if (response.statusCode !== 200) throw new Error(`GET /logs answered ${response.statusCode}: ${response.body}`)
  return response.json().lines
}

async function untilTick (app: FastifyInstance, token: string, id: number, atLeast: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const lines = await readLogs(app, token, id, '?tail=5')
    if (lines.some((l) => (tickOf(l.line) ?? 0) >= atLeast)) return
    await sleep(100)
  }
  throw new Error(`tick ${atLeast} never came`)
}

docker.test('logs and the live log stream of a real container', async (t) => {
  await tagLogImage()
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { ERP_IMAGE: 'erp-test-logs:{version}', LOG_STREAM_HEARTBEAT_SECONDS: 1 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const admin = await signup(app)
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Logs', subdomain: uniqueSubdomain('logs'), erp_version: '17.0', backend: 'docker' } })
  t.equal(created.statusCode, 202, created.body)
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'])
  // The ERP-password calls made before `running` are logged to stderr: from a stderr tick after them on, stderr is ticks and health checks.
  const latest = Math.max(0, ...(await readLogs(app, admin.token, id, '?tail=20')).map((l) => tickOf(l.line) ?? 0))
  await untilTick(app, admin.token, id, Math.max(12, latest + 6))

  const streamUrl = async (who: SignedUp, instance = id): Promise<string> => {
    const answer = await app.inject({ method: 'GET', url: `/api/instances/${instance}/logs/stream-token`, headers: bearer(who.token) })
    if (answer.statusCode !== 200) throw new Error(`stream-token answered ${answer.statusCode}: ${answer.body}`)
    const body = answer.json()
    t.equal(body.expires_in, 60)
    t.match(body.stream_url, new RegExp(`^http://portal\\.test/api/instances/${instance}/logs/stream\\?token=`))
    return body.stream_url.replace('http://portal.test', origin)
  }

  t.test('GET /logs: the last lines in order, both streams, tail and stream filters', async (t) => {
    const lines = await readLogs(app, admin.token, id, '?tail=10')
    t.equal(lines.length, 10)
    // httpd logs the health checks to stderr between the ticks.
    const tickLines = lines.filter((l) => tickOf(l.line) !== undefined)
    const numbers = tickLines.map((l) => tickOf(l.line)!)
    t.ok(numbers.length >= 5 && consecutive(numbers), `ticks in order without gaps: ${numbers.join(',')}`)
    t.ok(tickLines.every((l) => l.stream === (tickOf(l.line)! % 5 === 0 ? 'stderr' : 'stdout')), 'every fifth tick from stderr, the rest stdout')
    t.ok(lines.every((l, i) => i === 0 || BigInt(l.id.split('-')[0]!) >= BigInt(lines[i - 1]!.id.split('-')[0]!)), 'times ascend')
    const errors = await readLogs(app, admin.token, id, '?tail=3&stream=stderr')
    t.equal(errors.length, 3, 'the last three of stderr, however many stdout lines came after them')
    t.ok(errors.every((l) => l.stream === 'stderr'), 'stderr only')
    t.ok(errors.some((l) => tickOf(l.line) !== undefined), 'the fifth ticks are among them')
    const all = await readLogs(app, admin.token, id, '?tail=5000')
    t.match(all[0]?.line, 'erp-test-image: starting httpd on port 8069', 'from the first line')
    const since = all.at(-3)!.time
    const after = await readLogs(app, admin.token, id, `?since=${encodeURIComponent(since)}`)
    t.same(after.slice(0, 3).map((l) => l.id), all.slice(-3).map((l) => l.id), 'since: from that line on, with the same ids')
    const tooMany = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs?tail=5001`, headers: bearer(admin.token) })
    t.equal(tooMany.statusCode, 400)
  })

  t.test('another company\'s instance answers 404 on every log route', async (t) => {
    const other = await signup(app)
    for (const url of [`/api/instances/${id}/logs`, `/api/instances/${id}/logs/stream-token`]) {
      const answer = await app.inject({ method: 'GET', url, headers: bearer(other.token) })
      t.equal(answer.statusCode, 404, url)
      t.equal(answer.json().error.code, 'INSTANCE_NOT_FOUND')
    }
  })

  t.test('the stream delivers new lines, heartbeats, and resumes after Last-Event-ID without gaps or duplicates', async (t) => {
    const url = await streamUrl(admin)
    const first = await openSse(url)
    t.equal(first.status, 200)
    t.match(first.headers['content-type'], /^text\/event-stream/)
    const arrived = await first.waitFor(isTick, 1000)
    t.match(arrived.id, /^\d+-\d+$/, 'each line has an id')
    await first.waitFor(() => ticks(first.events).length >= 6, 3000)
    await first.waitFor(() => first.comments.includes('heartbeat'), 3000).catch(() => {})
    t.ok(first.comments.includes('heartbeat'), 'a heartbeat comment')
    first.close()
    const seen = ticks(first.events)
    t.ok(consecutive(seen), `consecutive: ${seen.join(',')}`)
    const lastId = first.events.filter(isTick).at(-1)!.id!
    await untilTick(app, admin.token, id, seen.at(-1)! + 4) // lines written while nobody listens

    const second = await openSse(url, { 'last-event-id': lastId })
    t.equal(second.status, 200)
    await second.waitFor(() => ticks(second.events).length >= 8, 4000)
    second.close()
    const resumed = ticks(second.events)
    t.equal(resumed[0], seen.at(-1)! + 1, 'resumes with the next line')
    t.ok(consecutive(resumed), `no gap, no duplicate: ${resumed.join(',')}`)

    const logged = (await readLogs(app, admin.token, id, '?tail=60')).filter((l) => tickOf(l.line) !== undefined)
    const older = logged.at(-20)!
    const third = await openSse(`${url}&last_event_id=${older.id}`)
    await third.waitFor(() => ticks(third.events).length >= 25, 6000)
    third.close()
    const backfilled = ticks(third.events)
    t.equal(backfilled[0], tickOf(older.line)! + 1, 'from a position older than the stream: read again from the engine')
    t.ok(consecutive(backfilled), `and joined to the live lines: ${backfilled.join(',')}`)
  })

  t.test('many viewers share one follow of the engine', async (t) => {
    const viewers: SseConnection[] = []
    for (let i = 0; i < 5; i++) viewers.push(await openSse(await streamUrl(admin)))
    await Promise.all(viewers.map((v) => v.waitFor(isTick, 2000)))
    t.same(app.logs.streamStats(), { channels: 1, viewers: 5 })
    for (const v of viewers) v.close()
  })

  t.test('tokens: expired, forged, another instance\'s, a bearer token, none: 401', async (t) => {
    const url = new URL(await streamUrl(admin))
    const base = `${origin}${url.pathname}`
    const key = deriveKey(TEST_JWT_SECRET, 'log-stream-tokens')
    const grant = { instanceId: id, userId: admin.user.id, tenantId: admin.user.tenant_id, sessionId: '00000000-0000-4000-8000-000000000000' }
    const expired = createStreamTokens(key, 60, () => Date.now() - 61_000).sign(grant)
    const forged = createStreamTokens(Buffer.alloc(32, 1), 60).sign(grant)
    const otherId = await recordInstance(app, admin.user.tenant_id, { name: 'Other', state: 'running' })
    const foreign = new URL(await streamUrl(admin, otherId)).searchParams.get('token')!
    for (const [why, query, headers] of [
      ['expired', `?token=${expired}`, {}],
      ['signed with another key', `?token=${forged}`, {}],
      ['for another instance', `?token=${encodeURIComponent(foreign)}`, {}],
      ['a portal bearer token in its place', `?token=${admin.token}`, {}],
      ['a bearer header and no token', '', bearer(admin.token)]
    ] as const) {
      const answer = await openSse(`${base}${query}`, headers)
      t.equal(answer.status, 401, why)
      t.equal(JSON.parse(answer.body).error.code, 'LOG_STREAM_TOKEN_INVALID', why)
    }
    const token = url.searchParams.get('token')!
    const asBearer = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs`, headers: bearer(token) })
    t.equal(asBearer.statusCode, 401, 'a stream token is no bearer token')
  })

  t.test('deactivating the user, or logging out, closes their open stream', async (t) => {
    const member = await addMember(app, admin.user.tenant_id)
    const stream = await openSse(await streamUrl(member))
    await stream.waitFor(isTick, 2000)
    t.equal((await app.inject({ method: 'DELETE', url: `/api/users/${member.user.id}`, headers: bearer(admin.token) })).statusCode, 200)
    await stream.waitFor((e) => e.event === 'end', 5000)
    t.same(JSON.parse(stream.events.at(-1)!.data), { reason: 'session-ended' })
    await stream.ended

    const own = await openSse(await streamUrl(admin))
    await own.waitFor(isTick, 2000)
    t.equal((await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(admin.token) })).statusCode, 200)
    await own.waitFor((e) => e.event === 'end', 5000)
    await own.ended
  })
})

docker.test('a stopped instance keeps its logs; a deleted one answers an empty list with a message', async (t) => {
  await tagLogImage()
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { ERP_IMAGE: 'erp-test-logs:{version}' }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Stops', subdomain: uniqueSubdomain('logstop'), erp_version: '17.0', backend: 'docker' } })
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'])
  await untilTick(app, admin.token, id, 3)
  await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })
  await waitForState(app, admin.token, id, ['stopped'])
  const kept = await readLogs(app, admin.token, id, '?tail=3')
  t.ok(kept.some((l) => l.line === 'erp-test-image: stopped'), 'the last lines of the stopped container')

  await app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })
  await waitForState(app, admin.token, id, ['deleted'])
  const gone = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs`, headers: bearer(admin.token) })
  t.equal(gone.statusCode, 200)
  t.same(gone.json().lines, [])
  t.match(gone.json().message, /deleted/)
  const token = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream-token`, headers: bearer(admin.token) })
  t.equal(token.statusCode, 409)
})
