import { errors, type KoaContextWithOIDC, type KoaMiddleware } from 'oidc-provider'

/**
 * The one resource server: `${BASE_URL}/api/mcp`. Clients that send no
 * `resource`, or the same URL with a trailing slash, get it as well.
 */
export function mcpResourceUrl (baseUrl: string): string {
  return `${baseUrl}/api/mcp`
}

export function normalizeResource (value: unknown, mcpResource: string): unknown {
  if (typeof value !== 'string') return value
  return value.replace(/\/+$/, '') === mcpResource ? mcpResource : value
}

export interface ResourceOptions {
  mcpResource: string
  accessTokenTtlSeconds: number
  signingKid: string
}

export function resourceIndicatorsFeature (options: ResourceOptions): Record<string, unknown> {
  return {
    enabled: true,
    defaultResource: async () => options.mcpResource,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: KoaContextWithOIDC, resource: string) => {
      if (normalizeResource(resource, options.mcpResource) !== options.mcpResource) {
        throw new errors.InvalidTarget(`unknown resource; the only resource is ${options.mcpResource}`)
      }
      return {
        scope: 'mcp',
        audience: options.mcpResource,
        accessTokenTTL: options.accessTokenTtlSeconds,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256', kid: options.signingKid } }
      }
    }
  }
}

/** Rewrites `resource` in the authorization request's query before the library parses it. */
export function normalizeAuthorizeResource (authorizePath: string, mcpResource: string): KoaMiddleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === authorizePath) {
      const query = new URLSearchParams(ctx.querystring as string)
      const resources = query.getAll('resource')
      if (resources.length > 0) {
        query.delete('resource')
        for (const resource of resources) query.append('resource', normalizeResource(resource, mcpResource) as string)
        ctx.querystring = query.toString()
      }
    }
    await next()
  }
}
