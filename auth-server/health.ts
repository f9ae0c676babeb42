import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type pg from 'pg'

/**
 * `/health/live` and `/health/ready` for an auth server deployed on its own (probes, HEALTHCHECK):
 * the same answers as the portal's. Ready means PostgreSQL answers (everything the server keeps
 * is there) and the server is not shutting down. Other paths go to oidc-provider.
 */
export function withHealthRoutes (pool: pg.Pool, provider: RequestListener, isClosing: () => boolean): RequestListener {
  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body))
  }
  const notReady = (response: ServerResponse, message: string) =>
    answer(response, 503, { success: false, error: { code: 'NOT_READY', message } })

  return (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url?.split('?', 1)[0]
    if (request.method !== 'GET' || (path !== '/health/live' && path !== '/health/ready')) return provider(request, response)
    if (path === '/health/live') return answer(response, 200, { success: true, status: 'live' })
    if (isClosing()) return notReady(response, 'Shutting down')
    const timeout = AbortSignal.timeout(2000)
    Promise.race([
      pool.query('SELECT 1'),
      new Promise((_resolve, reject) => timeout.addEventListener('abort', () => reject(timeout.reason)))
    ]).then(() => answer(response, 200, { success: true, status: 'ready' }), () => notReady(response, 'Database is not reachable'))
  }
}
