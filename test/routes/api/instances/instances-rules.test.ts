import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { instanceRow, recordInstance, recordInstances } from '../../../support/instance-rows.ts'
import { statementsDuring } from '../../../support/statements.ts'
import { captureLog } from '../../../support/log-capture.ts'
import type { UserActor } from '../../../../lib/actor.ts'
import { userScope } from '../../../../lib/call-scope.ts'

/** What only the operator may read: setting names, the engine's address, the Docker host. */
const INTERNALS = /KUBECONFIG|INSTANCE_BACKENDS|DOCKER_HOST|Docker host|unix:|tcp:|\/tmp\//i

// No engine answers here: every rule below must hold before any backend is asked.
process.env.DOCKER_HOST = 'unix:///tmp/erp-portal-no-docker.sock'

const valid = { name: 'Production', subdomain: 'acme-prod', erp_version: '17.0', backend: 'docker' }

t.test('create: bad input is a 400/409 naming the field, and records nothing', async (t) => {
  const { lines, logger } = captureLog()
  const { app } = await build(t, { logger, env: { INSTANCE_BACKENDS: 'docker,kubernetes' } })
  const admin = await signup(app)
  const create = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: body })

  for (const subdomain of ['ab', 'Acme', '-acme', 'acme-', 'a'.repeat(41), 'acme_prod', 'acme.prod']) {
    const response = await create({ ...valid, subdomain })
    t.equal(response.statusCode, 400, `subdomain ${subdomain}`)
    t.equal(response.json().error.code, 'VALIDATION_FAILED')
  }
  for (const subdomain of ['www', 'api', 'admin', 'portal', 'mail']) {
    const response = await create({ ...valid, subdomain })
    t.equal(response.statusCode, 409, `reserved ${subdomain}`)
    t.equal(response.json().error.code, 'SUBDOMAIN_RESERVED')
  }
  const version = await create({ ...valid, erp_version: '15.0' })
  t.equal(version.statusCode, 400)
  t.same(version.json().error, {
    code: 'VALIDATION_FAILED',
    message: 'erp_version must be one of: 16.0, 17.0, 18.0',
    details: { fields: [{ field: 'erp_version', in: 'body', message: 'must be one of: 16.0, 17.0, 18.0', allowed: ['16.0', '17.0', '18.0'] }] }
  }, 'an ERP version not offered is a validation failure naming the field and the versions offered')
  const backend = await create({ ...valid, backend: 'nomad' })
  t.equal(backend.statusCode, 400)
  t.match(JSON.stringify(backend.json().error), /docker/)
  t.match(JSON.stringify(backend.json().error), /kubernetes/)
  t.equal((await create({ ...valid, extra: 1 })).statusCode, 400, 'unknown fields refused')

  const kube = await create({ ...valid, backend: 'kubernetes' })
  t.equal(kube.statusCode, 503)
  t.same(kube.json().error, {
    code: 'INSTANCE_BACKEND_UNAVAILABLE',
    message: 'Instances on kubernetes cannot run right now: the hosting platform is not ready for them. The operator has been told.',
    details: { backend: 'kubernetes' }
  }, 'the tenant reads what cannot run, in their words')
  const docker = await create(valid)
  t.equal(docker.statusCode, 503)
  t.same(docker.json().error.details, { backend: 'docker' })
  t.match(docker.json().error.message, /^Instances on docker cannot run right now/)
  t.notMatch(kube.body + docker.body, INTERNALS, 'no setting name, address or host reaches the tenant')
  const logged = lines.filter((line) => line.msg === 'request failed').map((line) => line as { request_id?: string, err?: { operator?: { reason: string, hint?: string } } })
  t.match(logged.find((line) => line.request_id === kube.json().request_id)?.err?.operator, { hint: /KUBECONFIG/ }, 'the operator reads how to configure kubernetes, with the request id')
  t.match(logged.find((line) => line.request_id === docker.json().request_id)?.err?.operator, { reason: /Docker engine/i, hint: /DOCKER_HOST/ }, 'and what the Docker engine lacks')

  const [counts] = await app.sql<{ instances: number, activities: number }>({
    text: "SELECT (SELECT count(*) FROM instances)::int AS instances, (SELECT count(*) FROM activities WHERE type LIKE 'instance.%')::int AS activities",
    values: []
  })
  t.same(counts, { instances: 0, activities: 0 })
})

t.test('a backend left out of INSTANCE_BACKENDS is a 503 that names the backends offered', async (t) => {
  const { app } = await build(t, { env: { INSTANCE_BACKENDS: 'kubernetes' } })
  const admin = await signup(app)
  const response = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: valid })
  t.equal(response.statusCode, 503)
  t.same(response.json().error, {
    code: 'INSTANCE_BACKEND_UNAVAILABLE',
    message: 'Instances on docker are not offered here',
    details: { backend: 'docker', offered: ['kubernetes'] }
  })
  t.notMatch(response.body, INTERNALS, 'the setting that offers it is the operator\'s')
})

t.test('list, detail and status: own instances only, with the documented fields', async (t) => {
  const { app } = await build(t, { env: { INSTANCES_DOMAIN: 'erp.example.com' } })
  const admin = await signup(app)
  const other = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id, { subdomain: 'acme-live' })
  await recordInstance(app, admin.user.tenant_id, { state: 'deleted' })
  const theirs = await recordInstance(app, other.user.tenant_id)

  const list = await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })
  t.equal(list.statusCode, 200)
  t.same(list.json().instances.map((i: { id: number }) => i.id), [id], 'deleted and foreign instances are not listed')
  t.same(Object.keys(list.json().instances[0]).sort(), ['backend', 'created_at', 'erp_version', 'expires_at', 'id', 'kind', 'name', 'parent_id', 'state', 'status', 'status_message', 'subdomain', 'url'])
  t.equal(list.json().instances[0].url, 'https://acme-live.erp.example.com')

  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.same(Object.keys(detail).sort(), ['backend', 'cpu', 'database_name', 'database_size', 'erp_version', 'expires_at', 'id', 'kind', 'last_backup', 'last_sync', 'local_url', 'memory', 'name',
    'parent_id', 'postgres_db', 'staging_ids', 'state', 'status', 'status_message', 'storage', 'subdomain', 'url', 'version'])
  // The database is named after the instance's uid, which the API never shows.
  const [{ uid }] = await app.sql<{ uid: string }>({ text: 'SELECT uid FROM instances WHERE id = $1', values: [id] }) as [{ uid: string }]
  t.match(detail, { id, memory: 1024, storage: 10, cpu: 1, version: 'odoo:17.0', database_size: null, last_sync: null, database_name: `erp_${uid.replaceAll('-', '')}` })
  t.same({ kind: detail.kind, parent_id: detail.parent_id, expires_at: detail.expires_at, staging_ids: detail.staging_ids }, { kind: 'production', parent_id: null, expires_at: null, staging_ids: [] }, 'a production instance')
  t.match(detail.postgres_db, new RegExp(`:\\d+/erp_${uid.replaceAll('-', '')}$`))
  t.notMatch(JSON.stringify(detail), uid, 'the uid is not in the answer')

  for (const url of [`/api/instances/${theirs}`, `/api/instances/${theirs}/status`, `/api/instances/${Number.MAX_SAFE_INTEGER}`]) {
    const response = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
    t.equal(response.statusCode, 404, url)
    t.equal(response.json().error.code, 'INSTANCE_NOT_FOUND')
  }
})

t.test('status: ETag and If-None-Match answer 304 until the state changes', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  const first = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })
  t.equal(first.statusCode, 200)
  t.same(Object.keys(first.json()).sort(), ['id', 'state', 'status', 'success', 'updated_at'])
  const etag = first.headers.etag as string
  t.ok(etag, 'has an ETag')
  let again: Awaited<ReturnType<typeof app.inject>> | undefined
  const statements = await statementsDuring(app, async () => {
    again = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: { ...bearer(admin.token), 'if-none-match': etag } })
  })
  t.same(statements, ['session:instances-status'], 'one statement, the token check included')
  if (again === undefined) throw new Error('no answer')
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  await app.sql({ text: "UPDATE instances SET state = 'running', updated_at = now() + interval '1 second' WHERE id = $1", values: [id] })
  const changed = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: { ...bearer(admin.token), 'if-none-match': etag } })
  t.equal(changed.statusCode, 200)
  t.equal(changed.json().state, 'running')
  t.not(changed.headers.etag, etag)

  // The token is checked in the same statement as the read: a revoked session is refused.
  t.equal((await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(admin.token) })).statusCode, 200)
  const revoked = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })
  t.equal(revoked.statusCode, 401)
  t.equal(revoked.json().error.code, 'TOKEN_INVALID')
  const forged = await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(`${admin.token}x`) })
  t.equal(forged.statusCode, 401)
})

t.test('list: one statement, the token check included, however many instances; fresh on every call', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const list = async (query = '?per_page=100') => {
    let answer: Awaited<ReturnType<typeof app.inject>> | undefined
    const statements = await statementsDuring(app, async () => {
      answer = await app.inject({ method: 'GET', url: `/api/instances${query}`, headers: bearer(admin.token) })
    })
    if (answer === undefined || answer.statusCode !== 200) throw new Error(answer?.body ?? 'no answer')
    const body = answer.json()
    return { statements, ids: body.instances.map((i: { id: number }) => i.id) as number[], total: body.pagination.total as number }
  }
  await recordInstances(app, admin.user.tenant_id, { count: 3 })
  const few = await list()
  t.same(few.statements, ['session:instances-page'], 'one statement, the token check included')
  t.equal(few.ids.length, 3)
  await recordInstances(app, admin.user.tenant_id, { count: 40 })
  const many = await list()
  t.same(many.statements, ['session:instances-page'], 'still one with 43 instances')
  t.equal(many.ids.length, 43, 'the instances recorded since the last call are there')
  // The database pages: the pages join up into the whole list, each counting all 43.
  const pages = [await list('?per_page=20&page=1'), await list('?per_page=20&page=2'), await list('?per_page=20&page=3')]
  t.same(pages.flatMap((page) => page.ids), many.ids, 'three pages of 20, 20 and 3, in the same order')
  t.same(pages.map((page) => page.total), [43, 43, 43])
  const beyond = await list('?per_page=20&page=9')
  t.same([beyond.ids, beyond.total], [[], 43], 'a page past the end is empty and still counts them all')
  await app.sql({ text: "UPDATE instances SET created_at = now() + interval '1 minute' WHERE id = $1", values: [few.ids[2]] })
  t.equal((await list()).ids[0], few.ids[2], 'newest first, as read on this call')

  await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(admin.token) })
  const after = await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })
  t.equal(after.statusCode, 401, 'a revoked session is refused by that same statement')
})

t.test('lifecycle rules: no-ops answer 200, other transitions 409, delete is for admins', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const post = (id: number, action: string, token = admin.token) => app.inject({ method: 'POST', url: `/api/instances/${id}/${action}`, headers: bearer(token) })

  const stopped = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  const noop = await post(stopped, 'stop')
  t.equal(noop.statusCode, 200)
  t.equal(noop.json().queued, false)
  const running = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  t.equal((await post(running, 'start', member.token)).statusCode, 200, 'start on running is a no-op for any member')

  for (const state of ['provisioning', 'stopping', 'restarting', 'deleting']) {
    const id = await recordInstance(app, admin.user.tenant_id, { state })
    const before = await instanceRow(app, id)
    const response = await post(id, 'start')
    t.equal(response.statusCode, 409, `start while ${state}`)
    t.equal(response.json().error.code, 'INSTANCE_BUSY')
    t.same(await instanceRow(app, id), before, 'unchanged')
  }
  const deleted = await recordInstance(app, admin.user.tenant_id, { state: 'deleted' })
  t.equal((await post(deleted, 'restart')).json().error.code, 'INSTANCE_DELETED')

  const forbidden = await app.inject({ method: 'DELETE', url: `/api/instances/${running}`, headers: bearer(member.token) })
  t.equal(forbidden.statusCode, 403)
  t.equal((await instanceRow(app, running)).state, 'running')

  // A real transition needs the backend: with no engine, 503 and nothing changes.
  const unreachable = await post(stopped, 'start')
  t.equal(unreachable.statusCode, 503)
  t.equal((await instanceRow(app, stopped)).state, 'stopped')
})

t.test('a page for an agent bound to some instances: those alone, counted alone', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const ids = await recordInstances(app, admin.user.tenant_id, { count: 5 })
  const bound = [ids[0]!, ids[2]!, ids[4]!]
  const agent: UserActor = {
    kind: 'agent',
    userId: admin.user.id,
    tenantId: admin.user.tenant_id,
    role: 'admin',
    email: admin.user.email,
    name: 'Bound agent',
    sessionId: 'grant',
    access: { level: 'read', instanceIds: bound }
  }
  const scope = userScope(app.sql, agent, () => app.orm.em.fork())
  const first = await app.instances.listPage(scope, { page: 1, per_page: 2 })
  const second = await app.instances.listPage(scope, { page: 2, per_page: 2 })
  const listed = [...first.instances, ...second.instances].map((row) => row.id)
  t.same([...listed].sort(), [...bound].sort(), 'the bound instances, each once, over two pages')
  t.same([first.pagination.total, second.pagination.total], [3, 3], 'the total counts the bound instances alone')
  const past = await app.instances.listPage(scope, { page: 3, per_page: 2 })
  t.same([past.instances, past.pagination.total], [[], 3], 'past the end: empty, same total')
})
