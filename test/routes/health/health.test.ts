import t from 'tap'
import pg from 'pg'
import { build } from '../../support/build.ts'
import { adminQuery } from '../../support/database.ts'

t.test('live and ready answer 200 with a working database', async (t) => {
  const { app } = await build(t)
  const live = await app.inject({ method: 'GET', url: '/health/live' })
  t.same(live.json(), { success: true, status: 'live' })
  const ready = await app.inject({ method: 'GET', url: '/health/ready' })
  t.equal(ready.statusCode, 200)
  t.same(ready.json(), { success: true, status: 'ready' })
})

t.test('ready answers 503 when the database is gone', async (t) => {
  const { app, databaseUrl } = await build(t)
  t.equal((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200, 'control')
  const name = new URL(databaseUrl).pathname.slice(1)
  await adminQuery(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`)
  const ready = await app.inject({ method: 'GET', url: '/health/ready' })
  t.equal(ready.statusCode, 503)
  t.equal(ready.json().error.code, 'NOT_READY')
  t.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200, 'still alive')
})
