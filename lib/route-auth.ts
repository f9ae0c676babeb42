/**
 * How a route authenticates its caller:
 * - `portal`: a portal bearer token (the default for everything under /api/);
 * - `mcp`:    an OAuth access token from our authorization server (/api/mcp);
 * - `none`:   public (signup, login, health, docs; the default outside /api/).
 */
export type AuthMode = 'none' | 'portal' | 'mcp'

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode
  }
}

export function authModeOf (url: string, config: { auth?: AuthMode } | undefined): AuthMode {
  return config?.auth ?? (url.startsWith('/api/') ? 'portal' : 'none')
}
