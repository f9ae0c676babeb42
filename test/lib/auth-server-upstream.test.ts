import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { createAuthServerUpstream } from '../../lib/auth-server-upstream.ts'

const BASE_URL = 'http://portal.test'

/** A server that answers discovery with `issuer()` (the real auth servers are in test/server-two-deployments.test.ts). */
async function discovery (t: Test, issuer: () => string): Promise<{ origin: string, server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/.well-known/oauth-authorization-server') return response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: issuer() }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise
    return undefined
  } catch (error) {
    return error as { code: string, statusCode: number, message: string }
  }
}

t.test('AUTH_PORT: requests go to the server there only once it names BASE_URL as its issuer', async (t) => {
  let issuer = BASE_URL
  const { origin } = await discovery(t, () => issuer)
  const upstream = createAuthServerUpstream({ config: { BASE_URL, AUTH_PORT: Number(new URL(origin).port) }, verifiedForMs: 0 })
  t.equal(await upstream.origin(), origin)
  t.equal(await upstream.readinessProblem(), undefined, 'an auth server of its own deployment is not the portal\'s readiness')

  issuer = 'http://127.0.0.1:4000' // another deployment now answers on that port
  const error = await refusal(upstream.origin())
  t.equal(error?.code, 'AUTH_SERVER_UNAVAILABLE')
  t.equal(error?.statusCode, 502)
  t.match(error?.message, 'belongs to another deployment')
})

t.test('while a success is remembered, concurrent and following requests share one check', async (t) => {
  let answers = 0
  const { origin } = await discovery(t, () => { answers++; return BASE_URL })
  const upstream = createAuthServerUpstream({ config: { BASE_URL, AUTH_PORT: Number(new URL(origin).port) }, verifiedForMs: 60_000 })
  await Promise.all([upstream.origin(), upstream.origin(), upstream.origin()])
  await upstream.origin()
  t.equal(answers, 1, 'one check for concurrent and following requests')
})

t.test('the portal\'s child: its reported address, and readiness follows it', async (t) => {
  const { origin } = await discovery(t, () => BASE_URL)
  const foreign = await discovery(t, () => 'http://127.0.0.1:4000')
  let reported: string | undefined
  const upstream = createAuthServerUpstream({ config: { BASE_URL, AUTH_PORT: undefined }, child: { url: () => reported }, verifiedForMs: 0 })

  t.equal((await refusal(upstream.origin()))?.code, 'AUTH_SERVER_UNAVAILABLE', 'not started yet')
  t.match(await upstream.readinessProblem(), 'not running')

  reported = origin
  t.equal(await upstream.origin(), origin)
  t.equal(await upstream.readinessProblem(), undefined, 'ready')

  reported = foreign.origin
  t.match(await upstream.readinessProblem(), 'belongs to another deployment')
  t.equal((await refusal(upstream.origin()))?.code, 'AUTH_SERVER_UNAVAILABLE')

  reported = 'http://127.0.0.1:1' // nothing listens there
  t.match(await upstream.readinessProblem(), 'does not answer')
})

t.test('AUTH_SERVER_URL: an auth server on another host is used as given (a trailing slash dropped), under the same issuer check', async (t) => {
  let issuer = BASE_URL
  const { origin } = await discovery(t, () => issuer)
  const upstream = createAuthServerUpstream({ config: { BASE_URL, AUTH_PORT: 1, AUTH_SERVER_URL: `${origin}/` }, verifiedForMs: 0 })
  t.equal(await upstream.origin(), origin, 'AUTH_SERVER_URL wins over AUTH_PORT')
  issuer = 'https://someone-else.example'
  t.equal((await refusal(upstream.origin()))?.code, 'AUTH_SERVER_UNAVAILABLE', 'a server there that is not ours gets nothing')
})
