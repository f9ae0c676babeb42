import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'
import { bearerTokenIn } from '../bearer.ts'

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Whether an Authorization header carries the scrape token (compared in constant time). */
export function carriesScrapeToken (header: string | undefined, token: string): boolean {
  const presented = bearerTokenIn(header)
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token))
}

/**
 * The answer to a scrape on a plain Node server (the auth server, the METRICS_PORT listener):
 * 401 without the token when one is required, else the registry in the text format.
 */
export async function answerScrape (request: IncomingMessage, response: ServerResponse, registry: Registry, token: string | undefined): Promise<void> {
  if (token !== undefined && !carriesScrapeToken(request.headers.authorization, token)) {
    response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('A bearer token (METRICS_TOKEN) is required\n')
    return
  }
  try {
    const text = await registry.metrics()
    response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text)
  } catch {
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n')
  }
}

/** A listener of its own that answers only `GET /metrics` (METRICS_PORT): scrapes never touch the API's port. */
export async function listenForScrapes (registry: Registry, options: { port: number, host: string, token: string | undefined }): Promise<{ port: number, close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?', 1)[0] === '/metrics') {
      void answerScrape(request, response, registry, options.token)
      return
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: scrape /metrics\n')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
  }
}
