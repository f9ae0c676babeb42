import t from 'tap'
import type { MikroORM } from '@mikro-orm/postgresql'
import { ENTERPRISE_ONLY, MODULE_CATALOG, MODULE_CATEGORIES, seedModuleCatalog } from '../../../../plugins/app/modules/catalog.ts'
import { build } from '../../../support/build.ts'

interface ModuleRow { id: number, technical_name: string, name: string, description: string, category: string, sequence: number, edition: string }

const allRows = (orm: MikroORM): Promise<ModuleRow[]> =>
  orm.em.fork().getConnection().execute('SELECT id, technical_name, name, description, category, sequence, edition FROM erp_modules ORDER BY technical_name')

/** The test template may or may not be seeded already; these tests start from an empty table in their own database. */
const emptyCatalog = (orm: MikroORM) => orm.em.fork().getConnection().execute('DELETE FROM erp_modules')

t.test('the catalog data fits the table and reads well', async (t) => {
  const names = MODULE_CATALOG.map((m) => m.technicalName)
  t.equal(new Set(names).size, names.length, 'technical names are unique')
  t.ok(MODULE_CATALOG.length >= 30 && MODULE_CATALOG.length <= 50, `${MODULE_CATALOG.length} modules`)
  for (const m of MODULE_CATALOG) {
    t.match(m.technicalName, /^[a-z][a-z0-9_]{1,63}$/, `${m.technicalName}: Odoo-style technical name`)
    t.ok(m.name.length > 0 && m.name.length <= 120, `${m.technicalName}: name fits`)
    t.ok(m.description.length >= 30 && m.description.endsWith('.'), `${m.technicalName}: a real sentence of description`)
    t.ok((MODULE_CATEGORIES as readonly string[]).includes(m.category), `${m.technicalName}: known category`)
  }
  for (const category of MODULE_CATEGORIES) {
    const sequences = MODULE_CATALOG.filter((m) => m.category === category).map((m) => m.sequence)
    t.ok(sequences.length > 0, `${category} has modules`)
    t.equal(new Set(sequences).size, sequences.length, `${category}: sequences are distinct, so the order is fixed`)
  }
  for (const expected of ['sale_management', 'account', 'stock', 'crm', 'purchase', 'mrp', 'point_of_sale', 'project', 'hr', 'website', 'helpdesk']) {
    t.ok(names.includes(expected), `has ${expected}`)
  }
  t.same([...ENTERPRISE_ONLY].filter((name) => !names.includes(name)), [], 'every Enterprise-only name is a catalog app')
  t.same(MODULE_CATALOG.filter((m) => m.edition === 'enterprise').map((m) => m.technicalName).sort(), [...ENTERPRISE_ONLY].sort())
  for (const community of ['crm', 'sale_management', 'account', 'stock', 'website', 'project', 'hr']) t.equal(MODULE_CATALOG.find((m) => m.technicalName === community)?.edition, 'community', `${community} is in both editions`)
})

t.test('seeding inserts the catalog once; seeding again changes nothing', async (t) => {
  const { orm } = await build(t)
  await emptyCatalog(orm)
  t.same(await seedModuleCatalog(orm.em.fork()), { modules: MODULE_CATALOG.length, changed: MODULE_CATALOG.length })
  const first = await allRows(orm)
  t.same(first.map(({ id: _id, ...row }) => row), [...MODULE_CATALOG]
    .sort((a, b) => a.technicalName < b.technicalName ? -1 : 1)
    .map((m) => ({ technical_name: m.technicalName, name: m.name, description: m.description, category: m.category, sequence: m.sequence, edition: m.edition })))

  t.same(await seedModuleCatalog(orm.em.fork()), { modules: MODULE_CATALOG.length, changed: 0 }, 'unchanged rows are not rewritten')
  t.same(await allRows(orm), first, 'same rows, same ids')
})

t.test('seeding repairs edited rows by technical name, keeping their ids, and leaves unknown modules alone', async (t) => {
  const { orm } = await build(t)
  await seedModuleCatalog(orm.em.fork())
  const connection = orm.em.fork().getConnection()
  const [before] = await connection.execute<ModuleRow[]>("SELECT id FROM erp_modules WHERE technical_name = 'stock'")
  await connection.execute("UPDATE erp_modules SET name = 'Old name', description = 'Old', category = 'Misc', sequence = 999, edition = NULL WHERE technical_name = 'stock'")
  await connection.execute("UPDATE erp_modules SET edition = 'community' WHERE technical_name = 'helpdesk'")
  await connection.execute("INSERT INTO erp_modules (technical_name, name, description, category, sequence) VALUES ('custom_addon', 'Custom', 'A customer add-on.', 'Misc', 1)")

  t.same(await seedModuleCatalog(orm.em.fork()), { modules: MODULE_CATALOG.length, changed: 2 })
  t.same(await connection.execute("SELECT edition FROM erp_modules WHERE technical_name = 'helpdesk'"), [{ edition: 'enterprise' }], 'an edition too is put right (a row from before editions has none)')
  const [stock] = await connection.execute<ModuleRow[]>("SELECT * FROM erp_modules WHERE technical_name = 'stock'")
  const expected = MODULE_CATALOG.find((m) => m.technicalName === 'stock')
  t.same(stock, { id: before?.id, technical_name: 'stock', name: expected?.name, description: expected?.description, category: expected?.category, sequence: expected?.sequence, tenant_id: null, addon_source_id: null, erp_series: null, edition: 'community' })
  t.equal((await allRows(orm)).length, MODULE_CATALOG.length + 1, 'the custom module is still there')
})

t.test('replicas seeding at the same moment leave exactly one row per technical name', async (t) => {
  const { orm } = await build(t)
  for (let round = 0; round < 3; round++) {
    await emptyCatalog(orm)
    const results = await Promise.all([1, 2, 3, 4].map(() => seedModuleCatalog(orm.em.fork())))
    t.equal(results.reduce((sum, r) => sum + r.changed, 0), MODULE_CATALOG.length, `round ${round}: each module inserted by exactly one seeder`)
    const [counts] = await orm.em.fork().getConnection().execute('SELECT count(*)::int AS total, count(DISTINCT technical_name)::int AS distinct_names FROM erp_modules')
    t.same(counts, { total: MODULE_CATALOG.length, distinct_names: MODULE_CATALOG.length }, `round ${round}`)
  }
})
