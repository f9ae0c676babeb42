/**
 * How a route authenticates its caller:
 * - `portal`: a portal bearer token (the default for everything under /api/);
 * - `portal-inline`: a portal bearer token whose signature is checked before
 *   the handler and whose session is checked by the statement that reads the
 *   route's data (`auth.sessionSql`, one round trip): for the routes every
 *   portal session calls first or polls, where a second round trip would
 *   double their cost;
 * - `mcp`:    an OAuth access token from our authorization server (/api/mcp);
 * - `stream-token`, `download-token`: a short-lived token in the `token` query
 *   parameter, checked by the handler (a browser's EventSource or link sends no header);
 * - `support-token`: the shared SUPPORT_API_TOKEN in `X-Support-Token`, checked by the route's onRequest hook;
 * - `metrics-token`: METRICS_TOKEN as a bearer token, checked by the handler;
 * - `none`:   public (signup, login, health, docs; the default outside /api/).
 *
 * Only `portal` and `portal-inline` are checked by the auth plugin; the others name
 * the credential their route checks itself, which is what the OpenAPI document
 * publishes as the route's security requirement (securityOf).
 */
export type AuthMode = 'none' | 'portal' | 'portal-inline' | 'mcp' | 'stream-token' | 'download-token' | 'support-token' | 'metrics-token'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode
  }
}

export function authModeOf (url: string, config: { auth?: AuthMode } | undefined): AuthMode {
  return config?.auth ?? (url.startsWith('/api/') ? 'portal' : 'none')
}

/** Whether the route takes a portal bearer token (checked by the hook or by the handler). */
export function takesPortalToken (mode: AuthMode): boolean {
  return mode === 'portal' || mode === 'portal-inline'
}

/** The OpenAPI security scheme of each credential (plugins/external/swagger.ts declares them). */
const SCHEME_OF: Record<Exclude<AuthMode, 'none'>, Record<string, string[]>> = {
  portal: { bearerAuth: [] },
  'portal-inline': { bearerAuth: [] },
  mcp: { mcpOAuth: ['mcp'] },
  'stream-token': { streamToken: [] },
  'download-token': { downloadToken: [] },
  'support-token': { supportToken: [] },
  'metrics-token': { metricsToken: [] }
}

/** A route's OpenAPI security requirement, from its auth mode; `[]` (none) for a public route. */
export function securityOf (mode: AuthMode): Array<Record<string, string[]>> {
  return mode === 'none' ? [] : [SCHEME_OF[mode]]
}
