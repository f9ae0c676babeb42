/**
 * How a route authenticates its caller:
 * - `portal`: a portal bearer token (the default for everything under /api/);
 * - `portal-inline`: a portal bearer token whose signature is checked before
 *   the handler and whose session is checked by the statement that reads the
 *   route's data (`auth.sessionSql`, one round trip): for the routes every
 *   portal session calls first or polls, where a second round trip would
 *   double their cost;
 * - `mcp`:    an OAuth access token from our authorization server (/api/mcp);
 * - `none`:   public (signup, login, health, docs; the default outside /api/).
 */
export type AuthMode = 'none' | 'portal' | 'portal-inline' | 'mcp'

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
