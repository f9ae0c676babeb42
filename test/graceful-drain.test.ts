/**
 * SIGTERM on the real processes (the portal, the standalone auth server): readiness turns
 * false first while the process keeps serving (with `Connection: close`), then it stops
 * accepting, a request already under way still gets its answer, and the process exits 0.
 */
import net from 'node:net'
import t, { type Test } from 'tap'
import { createTestDatabase } from './support/database.ts'
import { freePort, portIsOpen, startServer, waitForReady, type Running } from './support/process.ts'

const DELAY_SECONDS = 2

/** A POST whose headers are sent but whose body is held back: in flight until `finish`. */
async function startSlowRequest (port: number, path: string, body: string, contentType: string) {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
  let received = ''
  socket.on('data', (chunk) => { received += String(chunk) })
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`)
  const half = Math.floor(body.length / 2)
  socket.write(body.slice(0, half))
  return {
    finish: async () => {
      socket.write(body.slice(half))
      await ended
      return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]), raw: received }
    }
  }
}

async function until<T> (probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = await probe()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function drainsGracefully (t: Test, running: Running, port: number, slow: { path: string, body: string, contentType: string, answered: number[] }) {
  const origin = `http://127.0.0.1:${port}`
  await waitForReady(`${origin}/health/ready`, running)
  const inFlight = await startSlowRequest(port, slow.path, slow.body, slow.contentType)

  running.child.kill('SIGTERM')
  const notReady = await until(async () => {
    const response = await fetch(`${origin}/health/ready`).catch(() => undefined)
    return response?.status === 503 ? response : undefined
  }, 'readiness to turn false')
  t.match(await notReady.json(), { success: false, error: { code: 'NOT_READY', message: 'Shutting down' } }, 'readiness turns false first')
  t.equal(notReady.headers.get('connection'), 'close', 'and connections are not kept alive while draining')
  const live = await fetch(`${origin}/health/live`)
  t.equal(live.status, 200, 'while it keeps serving new requests')
  t.equal(running.child.exitCode, null, 'still running during the delay')

  await until(async () => (await portIsOpen(port)) ? undefined : true, 'the port to stop accepting', DELAY_SECONDS * 1000 + 20_000)
  t.pass('after the delay, it stops accepting')
  t.equal(running.child.exitCode, null, 'but does not exit while a request is in flight')
  const answer = await inFlight.finish()
  t.ok(slow.answered.includes(answer.status), `the in-flight request was answered (${answer.status})`)
  t.match(answer.raw, /\r\nconnection: close\r\n/i)
  t.equal(await running.exited, 0, 'exit status 0')
}

t.test('the portal: readiness false, serve on, stop accepting, finish in-flight, exit 0', async (t) => {
  const port = await freePort()
  const running = startServer({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: await createTestDatabase(t), JWT_SECRET: 'x'.repeat(40), SHUTDOWN_DELAY_SECONDS: String(DELAY_SECONDS) })
  t.teardown(() => { running.child.kill('SIGKILL') })
  await drainsGracefully(t, running, port, {
    path: '/api/login', body: JSON.stringify({ login: 'nobody@example.com', password: 'not the password' }), contentType: 'application/json', answered: [401]
  })
})

t.test('the standalone auth server drains the same way', async (t) => {
  const port = await freePort()
  const running = startServer({ AUTH_PORT: String(port), DATABASE_URL: await createTestDatabase(t), JWT_SECRET: 'x'.repeat(40), SHUTDOWN_DELAY_SECONDS: String(DELAY_SECONDS) }, 'auth-server/server.ts')
  t.teardown(() => { running.child.kill('SIGKILL') })
  await drainsGracefully(t, running, port, {
    path: '/oauth/token', body: 'grant_type=client_credentials&client_id=nobody', contentType: 'application/x-www-form-urlencoded', answered: [400, 401]
  })
})
