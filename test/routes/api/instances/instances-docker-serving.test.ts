/**
 * On the real engine: an instance opens at its `local_url`; a backend that cannot
 * serve a new instance (its image, its database reachable from a container)
 * refuses it at once with a 503 in the tenant's words, the reason logged.
 * (A job whose image cannot be pulled: test/plugins/app/instances/instance-job-failures.test.ts.)
 */
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup, type SignedUp } from '../../../support/accounts.ts'
import { publishedPort, requireDockerOrSkipLoudly, waitForHttp } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { freePort } from '../../../support/process.ts'
import type { FastifyInstance } from 'fastify'

t.setTimeout(600_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

/** The app's log lines (pino JSON), to check what the operator is told. */
function logSink (): { lines: string[], logger: { level: string, stream: Writable } } {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done() } })
  return { lines, logger: { level: 'info', stream } }
}

const create = (app: FastifyInstance, admin: SignedUp, subdomain: string, erpVersion = '17.0') => app.inject({
  method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
  payload: { name: 'Shop', subdomain, erp_version: erpVersion, backend: 'docker' }
})
const detail = async (app: FastifyInstance, admin: SignedUp, id: number) =>
  (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance

/** Hosts, addresses, settings and registry words a tenant must never read. */
const INTERNALS = /ERP_IMAGE|DOCKER_|registry|docker\.io|lookup|\d+\.\d+\.\d+\.\d+|erp-none-|pg_hba|ERP_DATABASE|host\.docker\.internal/i

docker.test('local_url: the instance opens from this machine at its published port, and is null once stopped', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('local')
  const created = await create(app, admin, subdomain)
  t.equal(created.statusCode, 202, created.body)
  const id = created.json().instance.id as number
  t.equal(created.json().instance.local_url, null, 'nothing to open yet')
  await waitForState(app, admin.token, id, ['running', 'error'])

  const running = await detail(app, admin, id)
  t.match(running, { state: 'running', url: `https://${subdomain}.erp.test` }, 'running; the public address stays what it is')
  const info = await docker.docker.getContainer(`erp-${subdomain}`).inspect()
  t.equal(running.local_url, `http://127.0.0.1:${publishedPort(info)}`, 'the port the container publishes on loopback')
  const answer = await waitForHttp(`${running.local_url as string}/healthz`, 10_000)
  t.equal(answer.status, 200, 'and the ERP answers there')

  const openapi = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
  t.ok(JSON.stringify(openapi).includes('local_url'), 'the OpenAPI document describes local_url')

  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['stopped', 'error'])
  t.equal((await detail(app, admin, id)).local_url, null, 'a stopped instance publishes nothing')
})

docker.test('a backend that cannot serve a new instance refuses it at once: 503, in the tenant\'s words; the reason is logged', async (t) => {
  const sink = logSink()
  const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`
  const { app } = await build(t, { env: dockerInstanceEnv(t, { ERP_DATABASE_URL: unreachable }), logger: sink.logger })
  const admin = await signup(app)
  const refused = await create(app, admin, uniqueSubdomain('nodb'))
  t.equal(refused.statusCode, 503, refused.body)
  t.equal(refused.json().error.code, 'INSTANCE_BACKEND_NOT_READY')
  t.match(refused.json().error.message, /database is not reachable/)
  t.notMatch(refused.body, INTERNALS)
  t.equal((await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })).json().instances.length, 0, 'nothing recorded')
  t.ok(sink.lines.some((line) => line.includes('cannot reach their database server') && line.includes('ERP_DATABASE_HOST')), 'the operator reads why and what to set')

  const missing = `erp-none-${randomBytes(3).toString('hex')}`
  const { app: noImage } = await build(t, { env: dockerInstanceEnv(t, { ERP_IMAGE: `${missing}:{version}` }) })
  const other = await signup(noImage)
  const noImageAnswer = await create(noImage, other, uniqueSubdomain('noimg'), '18.0')
  t.equal(noImageAnswer.statusCode, 503, noImageAnswer.body)
  t.equal(noImageAnswer.json().error.code, 'INSTANCE_BACKEND_NOT_READY')
  t.match(noImageAnswer.json().error.message, /version 18\.0 is not available/)
  t.notMatch(noImageAnswer.body, INTERNALS)
})
