import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { ErrorEnvelope } from '../../schemas/common.ts'
import { authModeOf, takesPortalToken } from '../../lib/route-auth.ts'

/**
 * OpenAPI 3.1 generated from the routes' TypeBox schemas, served at
 * /api/openapi.json (routes/api/openapi.ts), with Swagger UI at /docs. Routes that need a portal
 * token get the bearer security requirement automatically.
 */
export default fp(async (fastify) => {
  fastify.addSchema(ErrorEnvelope)
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hosted ERP portal API',
        version: '1',
        description: 'JSON API of the hosted-ERP control plane. Every answer has `success`; errors use one envelope ' +
          '`{ success: false, error: { code, message, details? }, request_id }`.'
      },
      servers: [{ url: fastify.config.BASE_URL }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Token from POST /api/login or /api/signup' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'For GET /metrics: the METRICS_TOKEN setting' },
          mcpOAuth: {
            type: 'oauth2',
            description: 'For /api/mcp: an access token from this service\'s OAuth 2.1 authorization server (public clients, PKCE S256)',
            flows: {
              authorizationCode: {
                authorizationUrl: `${fastify.config.BASE_URL}/oauth/authorize`,
                tokenUrl: `${fastify.config.BASE_URL}/oauth/token`,
                refreshUrl: `${fastify.config.BASE_URL}/oauth/token`,
                scopes: { mcp: 'Act for the signed-in person in their company through MCP tools' }
              }
            }
          }
        }
      }
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const mode = authModeOf(url, route.config)
      const security = mode === 'mcp' ? [{ mcpOAuth: ['mcp'] }] : takesPortalToken(mode) ? [{ bearerAuth: [] }] : undefined
      if (security === undefined || schema === undefined) return { schema, url }
      return { schema: { ...schema, security } as typeof schema, url }
    }
  })

  await fastify.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: false },
    staticCSP: true,
    // Same rule as helmet.ts: no forced https upgrade for a portal served over http.
    transformStaticCSP: (header) => fastify.config.BASE_URL.startsWith('https:') ? header : header.replace(/\s*upgrade-insecure-requests;?/, '')
  })
}, { name: 'swagger', dependencies: ['env'] })
