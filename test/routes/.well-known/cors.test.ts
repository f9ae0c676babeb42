import t from 'tap'
import { build } from '../../support/build.ts'
import { BASE_URL, startTestAuthServer } from '../../auth-server/helpers.ts'

/** What a browser-based MCP client sends before reading a public, credential-free document from another origin. */
const preflight = {
  origin: 'https://inspector.example',
  'access-control-request-method': 'GET',
  'access-control-request-headers': 'mcp-protocol-version, authorization'
}

const PUBLIC_DOCUMENTS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/jwks.json'
]

t.test('the public metadata documents answer preflights and reads from any origin, without credentials', async (t) => {
  const auth = await startTestAuthServer(t)
  const { app } = await build(t, { env: { BASE_URL, AUTH_PORT: Number(new URL(auth.url).port) } })
  for (const url of PUBLIC_DOCUMENTS) {
    const answer = await app.inject({ method: 'OPTIONS', url, headers: preflight })
    t.equal(answer.statusCode, 204, `OPTIONS ${url}`)
    t.ok(['*', preflight.origin].includes(String(answer.headers['access-control-allow-origin'])), `${url}: any origin (${answer.headers['access-control-allow-origin']})`)
    t.notOk(answer.headers['access-control-allow-credentials'], `${url}: no credentials`)
    t.match(String(answer.headers['access-control-allow-headers']), /mcp-protocol-version/i, `${url}: the MCP header is allowed`)
    t.match(String(answer.headers['access-control-allow-methods']), /GET/, `${url}: GET is allowed`)

    const read = await app.inject({ method: 'GET', url, headers: { origin: preflight.origin, 'mcp-protocol-version': '2025-11-25' } })
    t.equal(read.statusCode, 200, `GET ${url}`)
    t.ok(['*', preflight.origin].includes(String(read.headers['access-control-allow-origin'])), `GET ${url}: any origin may read it (${read.headers['access-control-allow-origin']})`)
    t.notOk(read.headers['access-control-allow-credentials'], `GET ${url}: no credentials`)
  }
})

t.test('the API itself still refuses a foreign origin', async (t) => {
  const { app } = await build(t)
  const answer = await app.inject({ method: 'OPTIONS', url: '/api/instances', headers: { ...preflight, 'access-control-request-method': 'POST' } })
  t.notOk(answer.headers['access-control-allow-origin'], 'no CORS grant for the tenant API')
})
