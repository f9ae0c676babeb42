import t from 'tap'
import type { MikroORM } from '@mikro-orm/postgresql'
import { PLAN_CATALOG, seedPlans } from '../../../../plugins/app/plans/catalog.ts'
import { minorDigits } from '../../../../lib/money.ts'
import { build } from '../../../support/build.ts'

const connection = (orm: MikroORM) => orm.em.fork().getConnection()
const planRows = (orm: MikroORM) => connection(orm).execute<Array<Record<string, unknown>>>('SELECT * FROM plans ORDER BY code')
/** Each test starts from an empty table in its own database (no subscription references a plan there). */
const emptyPlans = (orm: MikroORM) => connection(orm).execute('DELETE FROM plans')

t.test('the catalog: a trial plan and paid plans that make sense', async (t) => {
  const codes = PLAN_CATALOG.map((p) => p.code)
  t.equal(new Set(codes).size, codes.length, 'codes are unique')
  t.equal(new Set(PLAN_CATALOG.map((p) => p.sequence)).size, codes.length, 'sequences are distinct, so the order is fixed')
  for (const code of ['trial', 'starter', 'business', 'enterprise']) t.ok(codes.includes(code), `has ${code}`)

  const trial = PLAN_CATALOG.find((p) => p.code === 'trial')
  t.match(trial, { isTrial: true, trialDays: 14, basePriceMonthly: 0, extraUserPriceMonthly: 0, storageOveragePrice: 0, active: true })
  for (const plan of PLAN_CATALOG) {
    t.ok(Number.isSafeInteger(plan.basePriceMonthly) && plan.basePriceMonthly >= 0, `${plan.code}: price in minor units`)
    t.ok(plan.includedUsers <= plan.maxUsers, `${plan.code}: included users within the maximum`)
    t.ok(plan.annualDiscountBps >= 0 && plan.annualDiscountBps <= 10_000, `${plan.code}: discount is a share`)
    t.equal(minorDigits(plan.currency), 2, `${plan.code}: ${plan.currency}`)
    t.ok(plan.features.length >= 3, `${plan.code}: has selling points`)
    t.ok(plan.code.length <= 40 && plan.name.length <= 100, `${plan.code}: fits the columns`)
  }
  const paid = PLAN_CATALOG.filter((p) => !p.isTrial).sort((a, b) => a.sequence - b.sequence)
  t.ok(paid.length >= 3)
  for (let i = 1; i < paid.length; i++) {
    t.ok(paid[i]!.basePriceMonthly > paid[i - 1]!.basePriceMonthly && paid[i]!.maxUsers > paid[i - 1]!.maxUsers, `${paid[i]!.code} is a step up`)
    t.ok(paid[i]!.extraUserPriceMonthly < paid[i - 1]!.extraUserPriceMonthly, `${paid[i]!.code}: extra users cost less`)
  }
})

t.test('seeding inserts the catalog once; seeding again changes nothing', async (t) => {
  const { orm } = await build(t)
  await emptyPlans(orm)
  t.same(await seedPlans(orm.em.fork()), { plans: PLAN_CATALOG.length, changed: PLAN_CATALOG.length })
  const first = await planRows(orm)
  t.same(first.map((row) => row.code), PLAN_CATALOG.map((p) => p.code).sort())
  const business = first.find((row) => row.code === 'business')
  t.match(business, { name: 'Business', base_price_monthly: '7900', included_users: 10, annual_discount_bps: 1500, currency: 'EUR', active: true, is_trial: false })
  t.same(business?.features, PLAN_CATALOG.find((p) => p.code === 'business')?.features, 'features stored as a JSON array')

  t.same(await seedPlans(orm.em.fork()), { plans: PLAN_CATALOG.length, changed: 0 }, 'unchanged rows are not rewritten')
  t.same(await planRows(orm), first, 'same rows, same ids, same timestamps')
})

t.test('seeding repairs edited plans by code, keeping their ids, and leaves other plans alone', async (t) => {
  const { orm } = await build(t)
  await seedPlans(orm.em.fork())
  const [before] = await connection(orm).execute("SELECT id FROM plans WHERE code = 'starter'")
  await connection(orm).execute("UPDATE plans SET name = 'Old', base_price_monthly = 1, active = false, features = '[]' WHERE code = 'starter'")
  await connection(orm).execute(`INSERT INTO plans (code, name, description, currency, base_price_monthly, included_users, extra_user_price_monthly,
    storage_limit_gb, storage_overage_price, max_users, max_instances, max_workers, features, created_at, updated_at)
    VALUES ('custom-deal', 'Custom', 'A negotiated plan.', 'EUR', 100, 1, 1, 1, 1, 1, 1, 1, '[]', now(), now())`)

  t.same(await seedPlans(orm.em.fork()), { plans: PLAN_CATALOG.length, changed: 1 })
  const [starter] = await connection(orm).execute("SELECT * FROM plans WHERE code = 'starter'")
  const entry = PLAN_CATALOG.find((p) => p.code === 'starter')
  t.match(starter, { id: before?.id, name: entry?.name, base_price_monthly: String(entry?.basePriceMonthly), active: true })
  t.same(starter?.features, entry?.features)
  t.equal((await planRows(orm)).length, PLAN_CATALOG.length + 1, 'the custom plan is still there')
})

t.test('replicas seeding at the same moment leave exactly one row per code', async (t) => {
  const { orm } = await build(t)
  for (let round = 0; round < 3; round++) {
    await emptyPlans(orm)
    const results = await Promise.all([1, 2, 3, 4].map(() => seedPlans(orm.em.fork())))
    t.equal(results.reduce((sum, r) => sum + r.changed, 0), PLAN_CATALOG.length, `round ${round}: each plan inserted by exactly one seeder`)
    const [counts] = await connection(orm).execute('SELECT count(*)::int AS total, count(DISTINCT code)::int AS codes FROM plans')
    t.same(counts, { total: PLAN_CATALOG.length, codes: PLAN_CATALOG.length }, `round ${round}`)
  }
  const again = await Promise.all([1, 2, 3].map(() => seedPlans(orm.em.fork())))
  t.same(again.map((r) => r.changed), [0, 0, 0], 'concurrent re-seeding of a seeded table changes nothing')
})
