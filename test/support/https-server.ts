/**
 * A local HTTPS server with a self-signed certificate made at test time
 * (openssl), valid for `localhost` and 127.0.0.1. Its certificate is handed to
 * the outbound guard as an extra CA; nothing else trusts it.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from '../auth-server/helpers.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface TestHttpsServer {
  /** https://localhost:<port> */
  origin: string
  port: number
  /** PEM of the self-signed certificate. */
  ca: string
  /** Routes by path; a missing one answers 404. */
  routes: Map<string, Handler>
  server: Server
}

/** `listenHost` '::1' makes a server reachable over IPv6 loopback only. */
export async function startHttpsServer (t: Teardown, options: { listenHost?: string, handler?: Handler } = {}): Promise<TestHttpsServer> {
  const dir = await tempDir(t)
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'])
  const ca = await readFile(cert, 'utf8')
  const routes = new Map<string, Handler>()
  const server = createServer({ key: await readFile(key), cert: ca }, (req, res) => {
    const handler = routes.get(new URL(req.url ?? '/', 'https://localhost').pathname) ?? options.handler
    if (handler === undefined) {
      res.statusCode = 404
      res.end()
      return
    }
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, options.listenHost ?? '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return { origin: `https://localhost:${port}`, port, ca, routes, server }
}

/** A JSON answer with optional headers. */
export function json (body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
}
