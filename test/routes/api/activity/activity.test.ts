import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { fillTenant } from '../../../support/data.ts'
import { statementsDuring } from '../../../support/statements.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { scopedEntityManager } from '../../../../database/tenancy.ts'

t.test('feed: newest first, cursor pages without gaps or repeats, filters, tenant-scoped', async (t) => {
  const { app } = await build(t)
  const alice = await signup(app)
  const bob = await signup(app)
  await fillTenant(app, alice.user.tenant_id, { activities: 25 })
  await fillTenant(app, bob.user.tenant_id, { activities: 5 })

  const seen: number[] = []
  let before: number | null | undefined
  let pages = 0
  do {
    const url = `/api/activity?limit=10${before ? `&before=${before}` : ''}`
    const page = (await app.inject({ method: 'GET', url, headers: bearer(alice.token) })).json()
    seen.push(...page.activities.map((a: { id: number }) => a.id))
    before = page.next_cursor
    pages++
  } while (before !== null && pages < 10)
  t.equal(pages, 3)
  t.equal(seen.length, 25, 'all of alice\'s, none of bob\'s')
  t.same(seen, [...seen].sort((a, b) => b - a), 'newest first')
  t.equal(new Set(seen).size, 25, 'no repeats')

  const odd = (await app.inject({ method: 'GET', url: '/api/activity?type=backup.failed&limit=100', headers: bearer(alice.token) })).json()
  t.equal(odd.activities.length, 13)
  t.ok(odd.activities.every((a: { type: string }) => a.type === 'backup.failed'))
  t.same(odd.activities[0].actor, { kind: 'system', id: 'bulk', name: 'System (bulk)' })

  t.equal((await app.inject({ method: 'GET', url: '/api/activity?limit=101', headers: bearer(alice.token) })).statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/api/activity?before=abc', headers: bearer(alice.token) })).statusCode, 400)
})

t.test('instance filter, and the record written by a mutation carries its actor', async (t) => {
  const { app } = await build(t)
  const alice = await signup(app)
  const instanceId = await recordInstance(app, alice.user.tenant_id)
  const em = scopedEntityManager(app.orm.em, alice.user.tenant_id)
  app.activity.record(em, { kind: 'system', tenantId: alice.user.tenant_id, job: 'reconciler' }, { type: 'instance.stopped', title: 'Instance stopped', targetType: 'instance', targetId: String(instanceId), instanceId })
  await em.flush()
  await app.inject({ method: 'POST', url: '/api/users/create', headers: bearer(alice.token), payload: { email: 'x@example.com', name: 'X', password: 'a long enough password' } })

  const filtered = (await app.inject({ method: 'GET', url: `/api/activity?instance_id=${instanceId}`, headers: bearer(alice.token) })).json()
  t.same(filtered.activities.map((a: { type: string }) => a.type), ['instance.stopped'])
  t.match(filtered.activities[0], { instance_id: instanceId, target_type: 'instance', target_id: String(instanceId) }, 'the integer id, a number in instance_id')
  for (const malformed of ['abc', '1.5', '0', '-1', '99999999999999999999', '00000000-0000-4000-8000-000000000000']) {
    const response = await app.inject({ method: 'GET', url: `/api/activity?instance_id=${malformed}`, headers: bearer(alice.token) })
    t.equal(response.statusCode, 400, `instance_id=${malformed}`)
    t.equal(response.json().error.code, 'VALIDATION_FAILED')
  }
  const all = (await app.inject({ method: 'GET', url: '/api/activity', headers: bearer(alice.token) })).json()
  t.match(all.activities[0], { type: 'user.created', actor: { kind: 'user', id: alice.user.id }, target_type: 'user' })
})

t.test('one statement per page, the token check included, however long the feed', async (t) => {
  const { app } = await build(t)
  const small = await signup(app)
  const large = await signup(app)
  await fillTenant(app, large.user.tenant_id, { activities: 500 })
  const page = async (token: string, query = 'limit=20') => {
    const response = await app.inject({ method: 'GET', url: `/api/activity?${query}`, headers: bearer(token) })
    t.equal(response.statusCode, 200)
    return response.json()
  }

  await page(small.token) // warm up: prepared statements
  t.same(await statementsDuring(app, () => page(small.token)), ['session:activity-list'])
  t.same(await statementsDuring(app, () => page(large.token, 'limit=100&type=backup.failed&before=400')), ['session:activity-list'])

  // Fresh on every call: a record written between two calls is in the second.
  const before = await page(large.token, 'limit=1')
  await fillTenant(app, large.user.tenant_id, { activities: 1 })
  const after = await page(large.token, 'limit=1')
  t.ok(after.activities[0].id > before.activities[0].id, 'the new record comes first')
})

t.test('the feed answers 401 for a missing, forged or revoked token, before its query is checked', async (t) => {
  const { app } = await build(t)
  const alice = await signup(app)
  const get = (headers: Record<string, string>, query = '') => app.inject({ method: 'GET', url: `/api/activity${query}`, headers })
  t.equal((await get({})).json().error.code, 'TOKEN_MISSING')
  t.equal((await get({}, '?limit=abc')).statusCode, 401, 'no token: 401 before the query string is validated')
  t.equal((await get(bearer(`${alice.token}x`))).json().error.code, 'TOKEN_INVALID')
  t.equal((await get(bearer(`${alice.token}x`), '?limit=abc')).statusCode, 401, 'forged token: 401 before validation too')
  t.equal((await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(alice.token) })).statusCode, 200)
  const revoked = await get(bearer(alice.token))
  t.equal(revoked.statusCode, 401)
  t.equal(revoked.json().error.code, 'TOKEN_INVALID')
})

t.test('the type filter takes only a catalog type: any other answers 400 VALIDATION_FAILED, never an empty list', async (t) => {
  const { app } = await build(t)
  const alice = await signup(app)
  await fillTenant(app, alice.user.tenant_id, { activities: 4 })
  const get = (type: string) => app.inject({ method: 'GET', url: `/api/activity?type=${encodeURIComponent(type)}`, headers: bearer(alice.token) })

  const valid = await get('backup.completed')
  t.equal(valid.statusCode, 200)
  t.same(valid.json().activities.map((a: { type: string }) => a.type), ['backup.completed', 'backup.completed'])
  const none = await get('ticket.closed')
  t.equal(none.statusCode, 200, 'a catalog type with no records')
  t.same(none.json().activities, [])

  for (const unknown of ['backup.nonsense', 'bulk.odd', 'backup', 'backup.*', 'Backup.completed', 'backup.completed ', '']) {
    const response = await get(unknown)
    t.equal(response.statusCode, 400, `type=${JSON.stringify(unknown)}`)
    t.match(response.json(), { success: false, error: { code: 'VALIDATION_FAILED' } })
  }
})
