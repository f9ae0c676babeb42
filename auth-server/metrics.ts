import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { collectDefaultMetrics, Counter, Registry } from 'prom-client'
import { answerScrape } from '../lib/metrics/scrape.ts'

/** Grant types a label may name; anything a client invents counts as `other`. */
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'])

interface TokenContext { oidc?: { params?: { grant_type?: unknown } } }
interface Emitter { on: (event: string, listener: (...args: any[]) => void) => unknown }

const grantTypeOf = (ctx: TokenContext) => {
  const grantType = ctx.oidc?.params?.grant_type
  return typeof grantType === 'string' && GRANT_TYPES.has(grantType) ? grantType : 'other'
}

/**
 * The auth server's Prometheus metrics: tokens issued and refused at the token
 * endpoint (by grant type, and for refusals the OAuth error code, a closed set
 * the library defines) and the default process metrics.
 */
export function createAuthMetrics (provider: Emitter): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const issued = new Counter({
    name: 'erp_auth_tokens_issued_total',
    help: 'Token requests answered with tokens, by grant type.',
    labelNames: ['grant_type'] as const,
    registers: [registry]
  })
  const refused = new Counter({
    name: 'erp_auth_tokens_refused_total',
    help: 'Token requests refused, by grant type and OAuth error code.',
    labelNames: ['grant_type', 'error'] as const,
    registers: [registry]
  })
  provider.on('grant.success', (ctx: TokenContext) => { issued.inc({ grant_type: grantTypeOf(ctx) }) })
  provider.on('grant.error', (ctx: TokenContext, error: { error?: unknown }) => {
    const code = typeof error.error === 'string' && /^[a-z_]{1,40}$/.test(error.error) ? error.error : 'server_error'
    refused.inc({ grant_type: grantTypeOf(ctx), error: code })
  })
  return registry
}

/** `GET /metrics` behind METRICS_TOKEN (absent setting: no route, the request goes on to `next`). */
export function withMetricsRoute (registry: Registry, token: string | undefined, next: RequestListener): RequestListener {
  if (token === undefined) return next
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url?.split('?', 1)[0] === '/metrics') {
      void answerScrape(request, response, registry, token)
      return
    }
    next(request, response)
  }
}
