import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { seedPlans } from '../../../../plugins/app/plans/catalog.ts'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { statementsDuring } from '../../../support/statements.ts'

async function setup (t: Parameters<typeof build>[0]) {
  const built = await build(t)
  await seedPlans(built.orm.em.fork())
  const admin = await signup(built.app)
  const recommend = async (query = '') => {
    const response = await built.app.inject({ method: 'GET', url: `/api/subscription/recommendation${query}`, headers: bearer(admin.token) })
    return { status: response.statusCode, body: response.json() }
  }
  return { ...built, recommend }
}

const sql = (app: FastifyInstance, text: string) => app.sql({ text, values: [] })

t.test('one tenant-bound statement after the token check; the catalog is read again only when it changed, and never served stale', async (t) => {
  const { app, recommend } = await setup(t)
  await recommend() // warm up
  const steady = await statementsDuring(app, () => recommend('?users=30'))
  t.equal(steady.length, 2, `the token check and one statement: ${steady.join(', ')}`)
  t.ok(steady.includes('plans-tenant-state'))

  await sql(app, "UPDATE plans SET base_price_monthly = 6900 WHERE code = 'business'")
  let body: Record<string, { base_monthly?: number, code?: string }> = {}
  const afterChange = await statementsDuring(app, async () => { body = (await recommend('?users=30')).body })
  t.same(afterChange.filter((name) => name.startsWith('plans-')), ['plans-tenant-state', 'plans-active'], 'the changed catalog is read')
  t.equal(body.pricing?.base_monthly, 209, 'with the new price: 69 + 20 x 7')
  t.equal((await statementsDuring(app, () => recommend('?users=30'))).length, 2, 'then one statement again')

  await sql(app, "UPDATE plans SET max_users = 20 WHERE code = 'business'")
  t.equal((await recommend('?users=30')).body.recommended_plan.code, 'enterprise', 'a changed limit counts at once')
})
