import fc from 'fast-check'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MODULE_CATALOG, seedModuleCatalog, type CatalogEntry } from '../../../../plugins/app/modules/catalog.ts'
import { build } from '../../../support/build.ts'

/** The catalog in the order the API promises: category, then sequence, then name. */
const ordered = [...MODULE_CATALOG].sort((a, b) =>
  a.category !== b.category ? (a.category < b.category ? -1 : 1) : a.sequence - b.sequence || (a.name < b.name ? -1 : 1))

/** What `q` should match, computed here rather than by the database. */
const matches = (q: string) => (m: CatalogEntry) =>
  [m.name, m.technicalName, m.description].some((text) => text.toLowerCase().includes(q.trim().toLowerCase()))

async function list (app: FastifyInstance, query: Record<string, string> = {}) {
  const response = await app.inject({ method: 'GET', url: '/api/modules', query })
  return { status: response.statusCode, body: response.json() }
}
const names = (body: { modules: Array<{ technical_name: string }> }) => body.modules.map((m) => m.technical_name)

async function seededApp (t: Parameters<typeof build>[0]) {
  const built = await build(t)
  await built.orm.em.fork().getConnection().execute('DELETE FROM erp_modules')
  await seedModuleCatalog(built.orm.em.fork())
  return built
}

t.test('the whole catalog, public, with exactly the documented fields, in order', async (t) => {
  const { app } = await seededApp(t)
  const { status, body } = await list(app)
  t.equal(status, 200, 'no token needed')
  t.equal(body.success, true)
  t.same(names(body), ordered.map((m) => m.technicalName))
  for (const item of body.modules) {
    t.same(Object.keys(item).sort(), ['addon_source_id', 'category', 'description', 'edition', 'id', 'name', 'technical_name'])
    t.ok(Number.isInteger(item.id))
  }
  const sales = body.modules.find((m: { technical_name: string }) => m.technical_name === 'sale_management')
  const entry = MODULE_CATALOG.find((m) => m.technicalName === 'sale_management')
  t.same({ ...sales, id: undefined }, { id: undefined, name: entry?.name, technical_name: 'sale_management', description: entry?.description, category: 'Sales', addon_source_id: null, edition: 'community' })

  const withToken = await app.inject({ method: 'GET', url: '/api/modules', headers: { authorization: 'Bearer not-a-token' } })
  t.equal(withToken.statusCode, 200, 'a stray token is not even looked at')
})

t.test('category filter: exact, case-insensitive, and literal', async (t) => {
  const { app } = await seededApp(t)
  const finance = ordered.filter((m) => m.category === 'Finance').map((m) => m.technicalName)
  t.same(names((await list(app, { category: 'Finance' })).body), finance)
  t.same(names((await list(app, { category: '  fINANCE ' })).body), finance)
  t.same(names((await list(app, { category: 'inventory & mrp' })).body), ordered.filter((m) => m.category === 'Inventory & MRP').map((m) => m.technicalName))
  t.same(names((await list(app, { category: 'Fin' })).body), [], 'no prefix matching')
  t.same(names((await list(app, { category: '%' })).body), [], '% is not a wildcard')
  t.same(names((await list(app, { category: 'Financ_' })).body), [], '_ is not a wildcard')
  t.same(names((await list(app, { category: '' })).body), ordered.map((m) => m.technicalName), 'blank means no filter')
  t.same(names((await list(app, { category: 'Sales', q: 'subscription' })).body), ['sale_subscription'], 'filters combine')
})

t.test('q searches name, technical name and description without case; trimmed', async (t) => {
  const { app } = await seededApp(t)
  t.same(names((await list(app, { q: '  INVOIC ' })).body), ordered.filter(matches('invoic')).map((m) => m.technicalName))
  t.ok(names((await list(app, { q: 'invoic' })).body).includes('account'))
  t.same(names((await list(app, { q: 'mrp_plm' })).body), ['mrp_plm'], 'technical name')
  t.same(names((await list(app, { q: 'appraisals' })).body), ['hr_appraisal'], 'name')
  t.same(names((await list(app, { q: 'odometer' })).body), ['fleet'], 'description')
  t.same(names((await list(app, { q: 'no such app anywhere' })).body), [])
  t.same(names((await list(app, { q: '%' })).body), [], '% is literal')
  t.same(names((await list(app, { q: '_' })).body), ordered.filter(matches('_')).map((m) => m.technicalName), '_ is literal')

  const tooLong = await app.inject({ method: 'GET', url: '/api/modules', query: { q: 'x'.repeat(101) } })
  t.equal(tooLong.statusCode, 400)
  t.equal(tooLong.json().error.code, 'VALIDATION_FAILED')
  t.same(tooLong.json().error.details.fields.map((f: { field: string }) => f.field), ['q'])
  t.equal((await app.inject({ method: 'GET', url: '/api/modules', query: { category: 'x'.repeat(61) } })).statusCode, 400)
})

t.test('for any q, the answer is exactly the modules whose text contains it', async (t) => {
  const { app } = await seededApp(t)
  const fragment = fc.constantFrom(...MODULE_CATALOG.flatMap((m) => [m.name, m.technicalName, m.description]))
    .chain((text) => fc.tuple(fc.constant(text), fc.nat(text.length), fc.integer({ min: 1, max: 12 })))
    .map(([text, start, length]) => text.slice(start, start + length))
  const q = fc.oneof(fragment, fragment.map((s) => s.toUpperCase()), fc.string({ unit: fc.constantFrom(...'ab_%\\ e&-'), maxLength: 4 }))
  await fc.assert(fc.asyncProperty(q, async (text) => {
    const { status, body } = await list(app, { q: text })
    const expected = text.trim() === '' ? ordered : ordered.filter(matches(text))
    return status === 200 && JSON.stringify(names(body)) === JSON.stringify(expected.map((m) => m.technicalName))
  }), { numRuns: 150 })
})
