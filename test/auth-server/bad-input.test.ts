import t from 'tap'
import type { Test } from 'tap'
import { isStorableText } from '../../lib/storable-text.ts'
import { PROXY_HEADERS, register, startTestAuthServer } from './helpers.ts'
import { REDIRECT, registerClient } from './token-support.ts'

const form = (params: Record<string, string>) => ({
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params)
})

async function expectInvalidRequest (t: Test, response: Response, what: string): Promise<void> {
  t.equal(response.status, 400, what)
  t.match(await response.json(), { error: 'invalid_request', error_description: /NUL character or text that is not valid UTF-8/ }, what)
}

t.test('isStorableText: NUL and lone surrogates anywhere, keys included', async (t) => {
  for (const good of ['', 'plain', 'emoji \ud83d\ude00', ['a', { b: 'c' }], 1, null, undefined]) t.ok(isStorableText(good), JSON.stringify(good))
  for (const bad of ['\0', 'a\u0000b', '\ud800', 'x\udc00', ['ok', '\0'], { nested: { deep: '\ud800' } }, { 'k\0': 1 }]) t.notOk(isStorableText(bad), JSON.stringify(bad))
})

t.test('a NUL or a lone surrogate on the OAuth endpoints is 400 invalid_request, never 500', async (t) => {
  const server = await startTestAuthServer(t)
  const clientId = await registerClient(server)

  // Forms and query strings cannot carry a lone surrogate (it arrives as U+FFFD); JSON can.
  for (const bad of ['ab\u0000cd', '\u0000']) {
    const label = JSON.stringify(bad)
    await expectInvalidRequest(t, await fetch(`${server.url}/oauth/token`, form({
      grant_type: 'authorization_code', client_id: clientId, code: bad, code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT
    })), `token code ${label}`)
    await expectInvalidRequest(t, await fetch(`${server.url}/oauth/token`, form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: bad })), `refresh_token ${label}`)
    await expectInvalidRequest(t, await fetch(`${server.url}/oauth/token`, form({ grant_type: 'refresh_token', client_id: bad, refresh_token: 'x' })), `token client_id ${label}`)
    await expectInvalidRequest(t, await fetch(`${server.url}/oauth/revoke`, form({ client_id: clientId, token: bad })), `revoke token ${label}`)

    const authorize = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams({ client_id: bad, response_type: 'code', scope: 'mcp' })}`, { redirect: 'manual', headers: PROXY_HEADERS })
    t.equal(authorize.status, 400, `authorize client_id ${label}: an error page`)
    t.equal(authorize.headers.get('location'), null)

    const withState = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams({
      client_id: clientId, response_type: 'code', scope: 'mcp', redirect_uri: REDIRECT, state: bad,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256'
    })}`, { redirect: 'manual', headers: PROXY_HEADERS })
    t.ok(withState.status < 500, `authorize state ${label}: ${withState.status}`)

    const consent = await fetch(`${server.url}/oauth/consent?${new URLSearchParams({ oauth_transaction: bad })}`, { headers: PROXY_HEADERS })
    t.equal(consent.status, 400, `consent transaction ${label}`)
  }
  for (const bad of ['ab\u0000cd', '\ud800', 'x\udfff']) {
    const registration = await register(server.url, { redirect_uris: ['http://127.0.0.1/cb'], client_name: `Agent ${bad}` })
    t.equal(registration.status, 400, `register client_name ${JSON.stringify(bad)}`)
    t.match(registration.body, { error: 'invalid_request' })
  }
  const { rows } = await server.pool.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE kind = 'Client'")
  t.equal(rows[0].n, 1, 'no client registered with bad text')
})
