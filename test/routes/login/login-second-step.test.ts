import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../support/build.ts'
import { addMember, bearer, signup } from '../../support/accounts.ts'
import { enableTwoFactor, totpCode } from '../../support/two-factor.ts'

/** Opens the page like a browser: the hidden CSRF field and the cookie that goes with it. */
async function openForm (app: FastifyInstance) {
  const page = await app.inject({ method: 'GET', url: '/login?oauth_transaction=txn-7' })
  return fieldsOf(page.body, page.headers['set-cookie'])
}

function fieldsOf (body: string, setCookie: unknown) {
  return {
    csrf: /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '',
    challenge: /name="challenge" value="([^"]+)"/.exec(body)?.[1] ?? '',
    cookie: String(setCookie).split(';')[0] ?? ''
  }
}

const post = (app: FastifyInstance, url: string, fields: Record<string, string>, cookie: string) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: '10.60.0.1'
  })

const handoffCodes = async (app: FastifyInstance) =>
  Number((await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM oauth_handoff_codes', values: [] }))[0]?.n)

async function passwordStep (app: FastifyInstance, email: string, password: string) {
  const form = await openForm(app)
  const response = await post(app, '/login', { csrf: form.csrf, email, password, oauth_transaction: 'txn-7' }, form.cookie)
  return { response, ...fieldsOf(response.body, response.headers['set-cookie']) }
}

t.test('the password of a person with a factor shows the second step, bound to the transaction; no code is minted', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)
  const step = await passwordStep(app, admin.email, admin.password)
  t.equal(step.response.statusCode, 200)
  t.match(step.response.body, /<h1>Two-step verification<\/h1>/)
  t.match(step.response.body, /<label for="code">Authentication code<\/label>/)
  t.match(step.response.body, /autocomplete="one-time-code"/)
  t.match(step.response.body, /<form method="post" action="\/login\/2fa"/)
  t.match(step.response.body, /name="oauth_transaction" value="txn-7"/)
  t.match(step.challenge, /^[\w-]{43}$/)
  t.equal(step.response.headers['x-frame-options'], 'DENY')
  t.equal(step.response.headers['cache-control'], 'no-store')
  t.equal(await handoffCodes(app), 0)

  const good = { csrf: step.csrf, challenge: step.challenge, code: totpCode(secret, 1), oauth_transaction: 'txn-7' }
  const forged = await post(app, '/login/2fa', { ...good, csrf: 'A'.repeat(43) }, step.cookie)
  t.equal(forged.statusCode, 403, 'CSRF-protected like the first step')
  t.equal(await handoffCodes(app), 0)

  const done = await post(app, '/login/2fa', good, step.cookie)
  t.equal(done.statusCode, 303)
  const location = new URL(String(done.headers.location))
  t.equal(location.pathname, '/oauth/handoff')
  t.equal(location.searchParams.get('oauth_transaction'), 'txn-7')
  t.equal(await handoffCodes(app), 1)
  const [open] = await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM portal_sessions WHERE user_id = $1 AND revoked_at IS NULL', values: [admin.user.id] })
  t.equal(Number(open?.n), 1, 'only the signup session: the page keeps none')
})

t.test('a wrong code shows the step again; a spent challenge goes back to the login form', async (t) => {
  const { app } = await build(t, { env: { TWO_FACTOR_MAX_ATTEMPTS: '2' } })
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)
  const step = await passwordStep(app, admin.email, admin.password)
  const wrongCode = totpCode(secret, 1) === '000000' ? '111111' : '000000'
  const wrong = await post(app, '/login/2fa', { csrf: step.csrf, challenge: step.challenge, code: wrongCode, oauth_transaction: 'txn-7' }, step.cookie)
  t.equal(wrong.statusCode, 200)
  t.match(wrong.body, /<p class="error" role="alert">The code is wrong, expired or already used<\/p>/)
  t.match(wrong.body, /Two-step verification/)
  const again = fieldsOf(wrong.body, wrong.headers['set-cookie'])
  t.equal(again.challenge, step.challenge, 'the same challenge')
  const empty = await post(app, '/login/2fa', { csrf: again.csrf, challenge: again.challenge, code: ' ' }, again.cookie)
  t.match(empty.body, /Enter the code from your authenticator app/)

  const second = await post(app, '/login/2fa', { csrf: again.csrf, challenge: again.challenge, code: wrongCode, oauth_transaction: 'txn-7' }, again.cookie)
  const last = fieldsOf(second.body, second.headers['set-cookie'])
  const spent = await post(app, '/login/2fa', { csrf: last.csrf, challenge: last.challenge, code: totpCode(secret, 1), oauth_transaction: 'txn-7' }, last.cookie)
  t.equal(spent.statusCode, 200)
  t.match(spent.body, /<button type="submit">Sign in<\/button>/, 'the login form again')
  t.match(spent.body, /sign in again/)
  t.match(spent.body, /name="oauth_transaction" value="txn-7"/)
  t.equal(await handoffCodes(app), 0)
})

t.test('a member whose company requires the factor, without one: told to set it up first; nothing minted', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { security: { require_two_factor: true } } })
  const step = await passwordStep(app, member.email, member.password)
  t.equal(step.response.statusCode, 200)
  t.match(step.response.body, /Your company requires two-factor authentication\. Set it up in the portal/)
  t.match(step.response.body, /<button type="submit">Sign in<\/button>/)
  t.equal(await handoffCodes(app), 0)
})
