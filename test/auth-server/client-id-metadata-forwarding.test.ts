/**
 * The production path of a slow client metadata document: the browser asks the portal's origin,
 * the portal forwards /oauth/authorize to the real auth server (waiting at most 10 s), which fetches
 * the document from a server that accepts the connection and never answers. On the default
 * settings the fetch gives up first, so the answer is the auth server's invalid_client page, not
 * the portal's 502 AUTH_SERVER_UNAVAILABLE.
 */
import t from 'tap'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { startSingleOrigin } from '../support/single-origin.ts'

t.setTimeout(60_000)

t.test('a document that never answers: invalid_client through the portal, well before the forwarding gives up', async (t) => {
  const sockets = new Set<Socket>()
  const silent = createServer((socket) => { sockets.add(socket); socket.on('error', () => {}) }) // accepts, never answers (not even TLS)
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  })
  const clientId = `https://localhost:${(silent.address() as AddressInfo).port}/agent/client.json`
  const so = await startSingleOrigin(t, { authEnv: { CLIENT_METADATA_ALLOWED_HOSTS: 'localhost' } })

  const started = Date.now()
  const authorize = await fetch(`${so.origin}/oauth/authorize?${new URLSearchParams({
    client_id: clientId, response_type: 'code', scope: 'mcp', redirect_uri: 'http://127.0.0.1:7777/cb', state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256'
  })}`, { redirect: 'manual' })
  const body = await authorize.text()
  const elapsed = Date.now() - started
  t.equal(authorize.status, 400, `the auth server's refusal, not the portal's 502: ${body.slice(0, 200)}`)
  t.notMatch(body, /AUTH_SERVER_UNAVAILABLE/)
  t.match(body, /client metadata document .*client\.json: no complete answer within 5 s/)
  t.match(body, /Error code: <code data-error-code>invalid_client<\/code>/)
  t.equal(authorize.headers.get('location'), null, 'never redirected to the unverified client')
  t.ok(elapsed >= 4500 && elapsed < 8000, `one wait of CLIENT_METADATA_TIMEOUT_SECONDS (5 s by default), not two (${elapsed} ms)`)
})
