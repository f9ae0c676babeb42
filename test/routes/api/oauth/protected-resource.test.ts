import t from 'tap'
import { build } from '../../../support/build.ts'

t.test('protected resource metadata for /api/mcp, at both paths, readable from any origin', async (t) => {
  const { app } = await build(t, { env: { BASE_URL: 'https://erp.example.com' } })
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
    const response = await app.inject({ method: 'GET', url, headers: { origin: 'https://inspector.example.org' } })
    t.equal(response.statusCode, 200, url)
    t.same(response.json(), {
      resource: 'https://erp.example.com/api/mcp',
      authorization_servers: ['https://erp.example.com'],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header']
    }, url)
    t.equal(response.headers['access-control-allow-origin'], '*', url)
    const bare = await app.inject({ method: 'GET', url })
    t.equal(bare.headers['access-control-allow-origin'], '*', `${url} without an Origin header`)
  }
})
