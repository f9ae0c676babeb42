import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'

t.setTimeout(60_000)

const allowLocal = { WEBHOOK_ALLOWED_HOSTS: 'localhost' }

t.test('admins manage endpoints; the secret is answered once; another company sees 404 and changes nothing', async (t) => {
  const { app } = await build(t, { env: allowLocal })
  const admin = await signup(app)
  const other = await signup(app)
  const call = async (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) => {
    const response = await app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) })
    return { status: response.statusCode, json: response.json() }
  }
  const created = await call(admin.token, 'POST', '/api/webhooks', { url: 'https://localhost:9/hooks', events: ['backup.failed', 'instance.error', 'backup.failed'], description: 'pager' })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const id = created.json.webhook.id as string
  t.match(created.json, { webhook: { url: 'https://localhost:9/hooks', events: ['instance.error', 'backup.failed'], enabled: true, description: 'pager' }, secret: /^whsec_/ })
  const got = await call(admin.token, 'GET', `/api/webhooks/${id}`)
  t.equal(got.status, 200)
  t.notOk('secret' in got.json, 'no secret on a read')
  t.equal((await call(admin.token, 'GET', '/api/webhooks')).json.webhooks.length, 1)

  const updated = await call(admin.token, 'PUT', `/api/webhooks/${id}`, { enabled: false, events: ['ping'] })
  t.match(updated, { status: 400, json: { error: { code: 'VALIDATION_FAILED' } } }, 'ping is not subscribable')
  t.match(await call(admin.token, 'PUT', `/api/webhooks/${id}`, { enabled: false }), { status: 200, json: { webhook: { enabled: false } } })

  for (const [method, url] of [['GET', `/api/webhooks/${id}`], ['PUT', `/api/webhooks/${id}`], ['DELETE', `/api/webhooks/${id}`], ['POST', `/api/webhooks/${id}/rotate-secret`],
    ['POST', `/api/webhooks/${id}/test`], ['GET', `/api/webhooks/${id}/deliveries`]] as const) {
    const answer = await call(other.token, method, url, method === 'PUT' ? { enabled: true } : undefined)
    t.match(answer, { status: 404, json: { success: false, error: { code: 'WEBHOOK_NOT_FOUND' } } }, `${method} ${url} from another company`)
  }
  t.same((await call(other.token, 'GET', '/api/webhooks')).json.webhooks, [], 'the other company lists none')
  t.match(await call(admin.token, 'GET', `/api/webhooks/${id}`), { json: { webhook: { enabled: false } } }, 'unchanged by the other company')

  const activity = await call(admin.token, 'GET', '/api/activity?type=webhook.created')
  t.equal(activity.json.activities.length, 1, 'the creation is in the feed')
  t.match(await call(admin.token, 'DELETE', `/api/webhooks/${id}`), { status: 200 })
  t.match(await call(admin.token, 'GET', `/api/webhooks/${id}`), { status: 404 })
})

t.test('a member (not an admin) is refused every webhook route', async (t) => {
  const { app } = await build(t, { env: allowLocal })
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const created = (await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: 'https://localhost:9/h', events: ['instance.error'] } })).json()
  for (const [method, url, payload] of [['GET', '/api/webhooks', undefined], ['POST', '/api/webhooks', { url: 'https://localhost:9/h', events: ['instance.error'] }],
    ['GET', `/api/webhooks/${created.webhook.id}`, undefined], ['POST', `/api/webhooks/${created.webhook.id}/rotate-secret`, undefined],
    ['GET', `/api/webhooks/${created.webhook.id}/deliveries`, undefined], ['DELETE', `/api/webhooks/${created.webhook.id}`, undefined]] as const) {
    const response = await app.inject({ method, url, headers: bearer(member.token), ...(payload === undefined ? {} : { payload }) })
    t.match({ status: response.statusCode, json: response.json() }, { status: 403, json: { error: { code: 'FORBIDDEN' } } }, `${method} ${url}`)
  }
})

t.test('bad endpoint URLs are refused with clear codes and nothing is recorded', async (t) => {
  const { app } = await build(t, { env: { WEBHOOK_ALLOWED_HOSTS: '' } })
  const admin = await signup(app)
  const refused = async (url: string, code: string, message: RegExp) => {
    const response = await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url, events: ['instance.error'] } })
    t.match({ status: response.statusCode, json: response.json() }, { status: 400, json: { error: { code, message, details: { field: 'url' } } } }, url)
  }
  await refused('http://example.com/hook', 'WEBHOOK_URL_INVALID', /scheme must be https/)
  await refused('not a url', 'WEBHOOK_URL_INVALID', /not a valid URL/)
  await refused('https://user:pw@example.com/hook', 'WEBHOOK_URL_INVALID', /user name or password/)
  await refused('https://localhost/hook', 'WEBHOOK_URL_REFUSED', /loopback/)
  await refused('https://127.0.0.1:8443/hook', 'WEBHOOK_URL_REFUSED', /loopback/)
  await refused('https://[::1]/hook', 'WEBHOOK_URL_REFUSED', /loopback/)
  await refused('https://169.254.169.254/latest/meta-data', 'WEBHOOK_URL_REFUSED', /link-local/)
  await refused('https://10.1.2.3/hook', 'WEBHOOK_URL_REFUSED', /private/)
  await refused('https://[fd00:ec2::254]/hook', 'WEBHOOK_URL_REFUSED', /unique local/)
  const events = await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: 'https://localhost/h', events: [] } })
  t.equal(events.statusCode, 400)
  const [row] = await app.orm.em.fork().execute<Array<{ n: string }>>('SELECT count(*) AS n FROM webhook_endpoints')
  t.equal(Number(row?.n), 0, 'nothing recorded')
})
