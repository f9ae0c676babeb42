import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import Fastify from 'fastify'
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

/**
 * A listener of its own that answers only `GET /metrics` (METRICS_PORT): scrapes never touch the API's port.
 * A Fastify instance, so that HOST means what it means for the main port (`localhost`: every loopback address).
 */
export async function listenForScrapes (registry: Registry, options: { port: number, host: string, token: string | undefined }): Promise<{ port: number, addresses: AddressInfo[], close: () => Promise<void> }> {
  const server = Fastify({ logger: false })
  server.get('/metrics', (request, reply) => {
    reply.hijack()
    void answerScrape(request.raw, reply.raw, registry, options.token)
  })
  server.setNotFoundHandler((_request, reply) => reply.code(404).type('text/plain; charset=utf-8').send('Not found: scrape /metrics\n'))
  await server.listen({ port: options.port, host: options.host })
  return {
    port: (server.server.address() as AddressInfo).port,
    addresses: server.addresses().filter((address): address is AddressInfo => typeof address !== 'string'),
    close: () => server.close()
  }
}
