import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { TEST_JWT_SECRET, build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { deriveKey } from '../../../lib/secrets.ts'

const HANDOFF_SECRET = deriveKey(TEST_JWT_SECRET, 'oauth-handoff').toString('base64url')

/** Opens the page like a browser: the hidden CSRF field and the cookie that goes with it. */
async function openForm (app: FastifyInstance, transaction?: string) {
  const url = transaction === undefined ? '/login' : `/login?oauth_transaction=${encodeURIComponent(transaction)}`
  const page = await app.inject({ method: 'GET', url })
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
  const cookie = String(page.headers['set-cookie']).split(';')[0] ?? ''
  return { page, csrf, cookie }
}

const post = (app: FastifyInstance, fields: Record<string, string>, cookie: string | undefined, remoteAddress = '10.30.0.1') =>
  app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }) },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress
  })

const codeCount = async (app: FastifyInstance) =>
  Number((await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM oauth_handoff_codes', values: [] }))[0]?.n)

t.test('the page: Email and Password fields, a Sign in button, CSRF cookie, no framing', async (t) => {
  const { app } = await build(t)
  const { page, csrf, cookie } = await openForm(app, 'txn-"><script>alert(1)</script>')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /<label for="email">Email<\/label>/)
  t.match(page.body, /<input id="email" name="email" type="email"/)
  t.match(page.body, /<label for="password">Password<\/label>/)
  t.match(page.body, /<input id="password" name="password" type="password"/)
  t.match(page.body, /<button type="submit">Sign in<\/button>/)
  t.notMatch(page.body, /<script>/, 'the transaction is escaped')
  t.match(page.body, /name="oauth_transaction" value="txn-&quot;&gt;&lt;script&gt;/)
  t.match(csrf, /^[\w-]{43}$/)
  t.match(cookie, /^login_csrf=[\w-]{43}$/)
  t.match(String(page.headers['set-cookie']), /HttpOnly; SameSite=Strict/)
  t.equal(page.headers['x-frame-options'], 'DENY')
  t.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/)
  t.notMatch(String(page.headers['content-security-policy']), /unsafe-inline/)
  t.equal(page.headers['cache-control'], 'no-store')
})

t.test('success: 303 to the auth server with a code that consume accepts; no portal session left open', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { csrf, cookie } = await openForm(app, 'txn-42')
  const response = await post(app, { csrf, email: admin.email.toUpperCase(), password: admin.password, oauth_transaction: 'txn-42' }, cookie)
  t.equal(response.statusCode, 303)
  t.equal(response.headers['x-frame-options'], 'DENY')
  const location = new URL(String(response.headers.location))
  t.equal(`${location.origin}${location.pathname}`, 'http://portal.test/oauth/handoff')
  t.equal(location.searchParams.get('oauth_transaction'), 'txn-42')
  const code = location.searchParams.get('handoff_code') ?? ''
  const consumed = await app.inject({ method: 'POST', url: '/api/oauth/handoff/consume', headers: { 'x-oauth-handoff-secret': HANDOFF_SECRET }, payload: { code } })
  t.equal(consumed.statusCode, 200)
  t.match(consumed.json(), { user: { id: admin.user.id, email: admin.email }, oauth_transaction: 'txn-42' })

  const [open] = await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM portal_sessions WHERE user_id = $1 AND revoked_at IS NULL', values: [admin.user.id] })
  t.equal(Number(open?.n), 1, 'only the signup session: the page keeps none')
})

t.test('without a transaction the page signs in and says so, minting nothing', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app, { name: 'Ada <Admin>' })
  const { csrf, cookie } = await openForm(app)
  const response = await post(app, { csrf, email: admin.email, password: admin.password }, cookie)
  t.equal(response.statusCode, 200)
  t.match(response.body, /signed in as Ada &lt;Admin&gt;/)
  t.equal(await codeCount(app), 0)
})

t.test('CSRF: a missing or wrong token, or no cookie, is 403 and mints no code', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { csrf, cookie } = await openForm(app, 'txn')
  const other = await openForm(app, 'txn')
  const good = { email: admin.email, password: admin.password, oauth_transaction: 'txn' }
  const cases: Array<[string, Record<string, string>, string | undefined]> = [
    ['no field', good, cookie],
    ['empty field', { ...good, csrf: '' }, cookie],
    ['wrong field', { ...good, csrf: 'A'.repeat(43) }, cookie],
    ['no cookie', { ...good, csrf }, undefined],
    ['field of another page', { ...good, csrf: other.csrf }, cookie],
    ['cookie set by an attacker', { ...good, csrf }, 'login_csrf=attacker-chosen-nonce']
  ]
  for (const [label, fields, sentCookie] of cases) {
    const response = await post(app, fields, sentCookie)
    t.equal(response.statusCode, 403, label)
    t.match(response.headers['content-type'], /^text\/html/, label)
    t.match(response.body, /expired or was not opened on this site/, label)
  }
  t.equal(await codeCount(app), 0, 'no code minted')
  t.equal((await post(app, { ...good, csrf }, cookie)).statusCode, 303, 'the genuine pair still works (control)')
})

t.test('wrong password and unknown e-mail: the form again, the same clear error, no code', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { csrf, cookie } = await openForm(app, 'txn')
  const wrong = await post(app, { csrf, email: admin.email, password: 'not the password', oauth_transaction: 'txn' }, cookie)
  const unknown = await post(app, { csrf, email: 'nobody@example.com', password: 'not the password', oauth_transaction: 'txn' }, cookie)
  for (const response of [wrong, unknown]) {
    t.equal(response.statusCode, 200)
    t.match(response.body, /<p class="error" role="alert">Invalid e-mail or password<\/p>/)
    t.match(response.body, /<button type="submit">Sign in<\/button>/, 'the form again')
    t.match(response.body, /name="oauth_transaction" value="txn"/, 'still bound to the transaction')
    t.notMatch(response.body, /at \w+ \(|stack|\.ts:\d+/, 'no stack trace')
  }
  t.match(wrong.body, new RegExp(`value="${admin.email}"`), 'the e-mail is kept')
  const empty = await post(app, { csrf, email: '', password: '' }, cookie)
  t.match(empty.body, /Enter your e-mail address and your password/)
  t.equal(await codeCount(app), 0)
})

t.test('rate-limited per IP (the login route\'s limit): 429 as a page', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_IP: '3' } })
  const { csrf, cookie } = await openForm(app, 'txn')
  const attempt = () => post(app, { csrf, email: 'x@example.com', password: 'wrong password', oauth_transaction: 'txn' }, cookie, '10.30.5.5')
  for (let i = 0; i < 3; i++) t.equal((await attempt()).statusCode, 200)
  const limited = await attempt()
  t.equal(limited.statusCode, 429)
  t.match(limited.headers['content-type'], /^text\/html/)
  t.match(limited.body, /Too many attempts/)
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal(limited.headers['x-frame-options'], 'DENY')
  const api = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'x@example.com', password: 'wrong password' }, remoteAddress: '10.30.5.5' })
  t.equal(api.statusCode, 429, 'one budget with POST /api/login')
})

t.test('a transaction with control characters or broken Unicode: a clear 400 page, the handoff\'s rule, no code', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { csrf, cookie } = await openForm(app)
  for (const raw of ['line%0Abreak', 'bell%07', 'del%7F', 'a%00b', 'tab%09']) {
    const form = `csrf=${csrf}&email=${encodeURIComponent(admin.email)}&password=${encodeURIComponent(admin.password)}&oauth_transaction=${raw}`
    for (const [method, response] of [
      ['GET', await app.inject({ method: 'GET', url: `/login?oauth_transaction=${raw}` })],
      ['POST', await app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, payload: form })]
    ] as const) {
      const label = `${method} ${raw}`
      t.equal(response.statusCode, 400, `${label}: 400`)
      t.match(response.headers['content-type'], /^text\/html/, `${label}: a page`)
      t.match(response.body, /sign-in link is damaged/, `${label}: says what is wrong`)
      t.match(response.body, /href="\/login"/, `${label}: the way back carries no bad transaction`)
    }
  }
  t.equal(await codeCount(app), 0, 'no handoff code minted')
  // %ED%A0%80 is the byte form of a lone surrogate: not UTF-8, so the query parser never makes a lone surrogate of it.
  t.ok((await app.inject({ method: 'GET', url: '/login?oauth_transaction=x%ED%A0%80' })).statusCode < 500, 'undecodable bytes: never a 500')
})
