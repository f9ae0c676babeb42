import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { login, secondStep, totpCode } from '../../../support/two-factor.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { accept, inviteAndReadToken } from '../../../support/invitations-flow.ts'

t.test('a company that requires the factor: a member without one enrols at login, then signs in with it', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)

  const byMember = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(member.token), payload: { security: { require_two_factor: true } } })
  t.equal(byMember.statusCode, 403, 'only admins change it')
  const set = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { security: { require_two_factor: true } } })
  t.equal(set.statusCode, 200)
  t.same(set.json().settings.security, { require_two_factor: true })
  const wrongType = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { security: { require_two_factor: 'yes' } } })
  t.equal(wrongType.statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(member.token) })).statusCode, 200, 'open sessions go on')

  const first = await login(app, member.email, member.password)
  t.equal(first.statusCode, 403)
  t.equal(first.json().error.code, 'TWO_FACTOR_ENROLMENT_REQUIRED')
  const { challenge } = first.json().error.details
  const notACodeChallenge = await secondStep(app, { challenge, code: '123456' })
  t.equal(notACodeChallenge.json().error.code, 'LOGIN_CHALLENGE_INVALID', 'an enrolment challenge is not a second-factor one')

  const enrol = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol', payload: { challenge } })
  t.equal(enrol.statusCode, 200)
  const { secret, otpauth_uri: uri, qr_code: qr } = enrol.json()
  t.match(uri, /^otpauth:\/\/totp\//)
  t.match(qr, /^data:image\/png;base64,/)
  const wrong = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol/verify', payload: { challenge, code: totpCode(secret) === '000000' ? '111111' : '000000' } })
  t.equal(wrong.json().error.code, 'TWO_FACTOR_CODE_INVALID')

  const verified = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol/verify', payload: { challenge, code: totpCode(secret) } })
  t.equal(verified.statusCode, 200)
  const body = verified.json()
  t.equal(body.recovery_codes.length, 10)
  t.equal(body.user.id, member.user.id)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(body.token) })).statusCode, 200, 'signed in')
  const reuse = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol', payload: { challenge } })
  t.equal(reuse.json().error.code, 'LOGIN_CHALLENGE_INVALID', 'the enrolment challenge is spent')

  const next = await login(app, member.email, member.password)
  t.equal(next.json().error.code, 'TWO_FACTOR_REQUIRED', 'from now on, the code')
  t.equal((await secondStep(app, { challenge: next.json().error.details.challenge, code: totpCode(secret, 1) })).statusCode, 200)

  const status = await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(body.token) })
  t.match(status.json().two_factor, { enabled: true, required_by_company: true })
  const off = await app.inject({ method: 'POST', url: '/api/me/2fa/disable', headers: bearer(body.token), payload: { recovery_code: body.recovery_codes[0] } })
  t.equal(off.statusCode, 409)
  t.equal(off.json().error.code, 'TWO_FACTOR_REQUIRED_BY_COMPANY')
  t.equal((await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(body.token) })).json().two_factor.recovery_codes_left, 10, 'nothing spent')

  const other = await signup(app)
  t.equal((await login(app, other.email, other.password)).statusCode, 200, 'another company is not affected')
})

t.test('a company that requires the factor: an invited person joins, then must enrol before a session opens', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { security: { require_two_factor: true } } })
  const { invitation, token } = await inviteAndReadToken(app, smtp, admin.token)

  const accepted = await accept(app, token)
  t.equal(accepted.statusCode, 403, accepted.body)
  t.equal(accepted.json().error.code, 'TWO_FACTOR_ENROLMENT_REQUIRED', 'no session without the factor')
  t.notOk('token' in accepted.json(), 'no token in the answer')
  const team = await app.inject({ method: 'GET', url: '/api/users', headers: bearer(admin.token) })
  t.ok(team.json().users.some((u: { email: string }) => u.email === invitation.email), 'the person joined all the same')
  t.equal((await accept(app, token)).json().error.code, 'INVITATION_USED', 'the invitation is spent')

  const { challenge } = accepted.json().error.details
  const enrol = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol', payload: { challenge } })
  t.equal(enrol.statusCode, 200)
  const verified = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol/verify', payload: { challenge, code: totpCode(enrol.json().secret) } })
  t.equal(verified.statusCode, 200)
  t.equal(verified.json().user.email, invitation.email, 'signed in once enrolled')
})
