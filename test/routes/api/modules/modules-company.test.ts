/**
 * `GET /api/modules?include=company`: an authenticated caller sees the shared catalog plus the
 * modules synced from their company's addon sources; never another company's. Without
 * `include` the catalog stays public and the same for everyone, token or not.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { replaceSourceModules } from '../../../../plugins/app/modules/source-modules.ts'

async function syncedModules (app: FastifyInstance, token: string, tenantId: string, repo: string, modules: string[]): Promise<number> {
  const created = await app.inject({ method: 'POST', url: '/api/addon-sources', headers: bearer(token), payload: { repository_url: `https://localhost/${repo}.git`, branch: 'main' } })
  const sourceId = created.json().addon_source.id as number
  await app.orm.em.fork().transactional(async (tx) => {
    await replaceSourceModules(tx, tenantId, sourceId, modules.map((m) => ({ technicalName: m, name: `${m} app`, description: `${m} does things`, erpSeries: null })))
  })
  return sourceId
}

t.test('include=company adds the caller\'s synced modules with their source, and only theirs', async (t) => {
  const { app } = await build(t, { env: { ADDON_SOURCE_ALLOWED_HOSTS: 'localhost' } })
  const acme = await signup(app)
  const globex = await signup(app)
  const acmeSource = await syncedModules(app, acme.token, acme.user.tenant_id, 'acme', ['acme_invoices', 'acme_reports'])
  await syncedModules(app, globex.token, globex.user.tenant_id, 'globex', ['globex_secret'])

  const get = async (query: string, token?: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/modules${query}`, ...(token === undefined ? {} : { headers: bearer(token) }) })
    return { status: response.statusCode, body: response.json(), headers: response.headers }
  }
  const custom = (body: { modules: Array<{ technical_name: string, addon_source_id: number | null }> }) => body.modules.filter((m) => m.addon_source_id !== null)

  const shared = await get('')
  t.equal(shared.status, 200)
  t.same(custom(shared.body), [], 'the public catalog has no company modules')
  t.same((await get('', acme.token)).body, shared.body, 'a token alone changes nothing: the public catalog is the same for everyone')

  const mine = await get('?include=company', acme.token)
  t.equal(mine.status, 200)
  t.match(custom(mine.body), [
    { technical_name: 'acme_invoices', name: 'acme_invoices app', category: 'Custom addons', addon_source_id: acmeSource },
    { technical_name: 'acme_reports', addon_source_id: acmeSource }
  ])
  t.equal(custom(mine.body).length, 2, 'never another company\'s modules')
  t.notMatch(JSON.stringify(mine.body), /globex_secret/)
  t.equal(mine.body.modules.length, shared.body.modules.length + 2, 'the shared catalog too')
  t.equal(mine.headers['cache-control'], 'private, no-store', 'a company\'s list is not cached by shared caches')

  const searched = await get('?include=company&q=acme_rep', acme.token)
  t.same(searched.body.modules.map((m: { technical_name: string }) => m.technical_name), ['acme_reports'], 'the filters apply to company modules too')
  t.same(custom((await get('?include=company', globex.token)).body).map((m) => m.technical_name), ['globex_secret'])

  const anonymous = await get('?include=company')
  t.equal(anonymous.status, 401)
  t.equal(anonymous.body.error.code, 'TOKEN_MISSING')
  const forged = await get('?include=company', `${acme.token.slice(0, -4)}AAAA`)
  t.equal(forged.status, 401)
  t.equal((await get('?include=everyone', acme.token)).status, 400, 'only `company` is accepted')
})
