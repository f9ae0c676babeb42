import { createPublicKey, randomUUID } from 'node:crypto'
import t from 'tap'
import { signup } from '../support/accounts.ts'
import { BASE_URL, MCP, rpc, startMcpFixture } from '../support/mcp.ts'
import { createTokenForger, strangerKey, without } from './support-forge.ts'
import { assertAccepted, assertTokenRefused } from './support-rejection.ts'

/**
 * Tokens made by the test, not by the authorization server: each differs from
 * a genuine one in one respect and must be refused with 401 invalid_token.
 * The first case proves the forger itself makes acceptable tokens, so every
 * refusal below is due to the one thing that case changed.
 */
t.test('forged and altered access tokens', async (t) => {
  const { app, auth, connectAgent } = await startMcpFixture(t)
  const person = await signup(app)
  const agent = await connectAgent(person)
  const forger = await createTokenForger(auth)
  const genuine = () => forger.claimsLike(agent.accessToken)
  const now = Math.floor(Date.now() / 1000)

  t.test('control: the genuine claims signed with the real key are accepted', async (t) => {
    assertAccepted(t, await rpc(app, await forger.sign(genuine()), 'tools/list'))
  })

  const refused: Record<string, () => Promise<string> | string> = {
    'audience of another resource': () => forger.sign({ ...genuine(), aud: `${BASE_URL}/api/other` }),
    'audience BASE_URL itself': () => forger.sign({ ...genuine(), aud: BASE_URL }),
    'audience with a trailing slash (the server only ever issues BASE_URL/api/mcp)': () => forger.sign({ ...genuine(), aud: `${MCP}/` }),
    'audience missing': () => forger.sign(without(genuine(), 'aud')),
    'an audience list that contains ours (the server issues exactly one)': () => forger.sign({ ...genuine(), aud: [MCP, `${BASE_URL}/api/other`] }),
    'scope without mcp': () => forger.sign({ ...genuine(), scope: 'openid profile' }),
    'scope "mcp-extra" (not the word mcp)': () => forger.sign({ ...genuine(), scope: 'mcp-extra' }),
    'scope as an array': () => forger.sign({ ...genuine(), scope: ['mcp'] }),
    'scope missing': () => forger.sign(without(genuine(), 'scope')),
    'another issuer': () => forger.sign({ ...genuine(), iss: 'https://evil.example' }),
    'issuer with a trailing slash': () => forger.sign({ ...genuine(), iss: `${BASE_URL}/` }),
    expired: () => forger.sign({ ...genuine(), iat: now - 1000, exp: now - 100 }),
    'not valid yet (nbf in the future)': () => forger.sign({ ...genuine(), nbf: now + 600 }),
    'expiry missing': () => forger.sign(without(genuine(), 'exp')),
    'typ JWT instead of at+jwt': () => forger.sign(genuine(), { header: { typ: 'JWT' } }),
    'typ missing': () => forger.sign(genuine(), { header: { typ: undefined } }),
    'alg none, unsigned': () => forger.unsigned(genuine()),
    'HS256 signed with the portal\'s JWT_SECRET': () =>
      forger.sign(genuine(), { header: { alg: 'HS256' }, key: new TextEncoder().encode(app.config.JWT_SECRET as string) }),
    'HS256 signed with the published RSA modulus': () =>
      forger.sign(genuine(), { header: { alg: 'HS256' }, key: Buffer.from(forger.publicJwk.n, 'base64url') }),
    'HS256 signed with the published public key in PEM': () =>
      forger.sign(genuine(), { header: { alg: 'HS256' }, key: Buffer.from(createPublicKey({ key: forger.publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' })) }),
    'an unknown kid (a fresh RSA key)': async () => forger.sign(genuine(), { header: { kid: 'a-key-nobody-published' }, key: await strangerKey() }),
    'the published kid but signed by another key': async () => forger.sign(genuine(), { key: await strangerKey() }),
    'a genuine token with an altered payload': () => alterPayload(agent.accessToken, { sub: randomUUID() }),
    'jti missing': () => forger.sign(without(genuine(), 'jti')),
    'grant_id missing': () => forger.sign(without(genuine(), 'grant_id')),
    'client_id missing': () => forger.sign(without(genuine(), 'client_id')),
    'sub missing': () => forger.sign(without(genuine(), 'sub')),
    'sub not a UUID': () => forger.sign({ ...genuine(), sub: 'admin' }),
    'sub of a user that does not exist': () => forger.sign({ ...genuine(), sub: randomUUID() }),
    'grant_id that does not exist': () => forger.sign({ ...genuine(), grant_id: 'no-such-grant' }),
    'client_id other than the grant\'s': () => forger.sign({ ...genuine(), client_id: 'another-client' })
  }
  for (const [name, forge] of Object.entries(refused)) {
    t.test(`${name}: 401 invalid_token`, async (t) => {
      assertTokenRefused(t, await rpc(app, await forge(), 'tools/list'))
    })
  }

  t.test('grant_id of another person\'s grant: 401 invalid_token', async (t) => {
    const someoneElse = await connectAgent(await signup(app))
    const token = await forger.sign({ ...genuine(), grant_id: someoneElse.grantId, client_id: someoneElse.clientId })
    assertTokenRefused(t, await rpc(app, token, 'tools/list'))
  })

  t.test('a jti on the revocation denylist: 401 invalid_token', async (t) => {
    const claims = genuine()
    const token = await forger.sign(claims)
    assertAccepted(t, await rpc(app, token, 'tools/list'))
    await app.sql({ text: 'INSERT INTO oauth_revoked_tokens (jti, expires_at) VALUES ($1, to_timestamp($2))', values: [claims.jti, claims.exp] })
    assertTokenRefused(t, await rpc(app, token, 'tools/list'))
  })
})

/** Replaces claims in a signed token, keeping its header and signature. */
function alterPayload (token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), ...changes }
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
}
