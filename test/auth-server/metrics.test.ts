import t, { type Test } from 'tap'
import { startAuthServer } from '../../auth-server/server.ts'
import { startTestAuthServer, type TestAuthServer } from './helpers.ts'
import { createUser, issueCode, pkcePair, redeem, registerClient, tokenRequest } from './token-support.ts'

// The authorization server's own /metrics: tokens issued and refused, behind METRICS_TOKEN.
// The server under test is the real one (`npm run auth`'s startAuthServer); a second provider on the
// same database (the test helper's) mints the codes it redeems, as the consent step would.

async function realServer (t: Test, env: Record<string, unknown> = {}): Promise<TestAuthServer> {
  const helper = await startTestAuthServer(t, env)
  const server = await startAuthServer({ config: helper.config, port: 0, host: '127.0.0.1', log: () => {} })
  t.teardown(server.close)
  return { ...helper, url: server.url }
}

const TOKEN = 'metrics-token-that-is-long-enough-0123456789'
const sample = (text: string, line: string) => {
  const found = text.split('\n').find((l) => l.startsWith(line + ' '))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

t.test('without METRICS_TOKEN, /metrics is not served', async (t) => {
  const server = await realServer(t)
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  t.not(response.status, 200)
  t.notMatch(await response.text(), /erp_auth_tokens/)
})

t.test('tokens issued and refused, by grant type and error, behind the token', async (t) => {
  const server = await realServer(t, { METRICS_TOKEN: TOKEN })
  t.equal((await fetch(`${server.url}/metrics`)).status, 401, 'no token, no metrics')
  t.equal((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401)

  const user = await createUser(server)
  const clientId = await registerClient(server)
  const { verifier, challenge } = pkcePair()
  const { code } = await issueCode(server, clientId, user.id, challenge)
  t.equal((await redeem(server, clientId, code, verifier)).status, 200, 'issued')
  t.equal((await redeem(server, clientId, code, verifier)).status, 400, 'the replayed code is refused')
  t.equal((await tokenRequest(server, { grant_type: `made-up-${Math.random()}`, client_id: clientId })).status, 400, 'an invented grant type is refused')

  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain/)
  const text = await response.text()
  t.equal(sample(text, 'erp_auth_tokens_issued_total{grant_type="authorization_code"}'), 1)
  t.equal(sample(text, 'erp_auth_tokens_refused_total{grant_type="authorization_code",error="invalid_grant"}'), 1)
  t.equal(sample(text, 'erp_auth_tokens_refused_total{grant_type="other",error="unsupported_grant_type"}'), 1, 'an invented grant type is not a label')
  t.match(text, /^process_cpu_user_seconds_total /m, 'default process metrics')
})
