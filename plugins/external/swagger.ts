import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { authModeOf, securityOf } from '../../lib/route-auth.ts'
import { componentSchemas } from '../../lib/openapi/components.ts'
import { securitySchemes } from '../../lib/openapi/security-schemes.ts'
import { TAGS, X_TAG_GROUPS } from '../../lib/openapi/tags.ts'

/**
 * OpenAPI 3.1 generated from the routes' TypeBox schemas, served at
 * /api/openapi.json (routes/api/openapi.ts), with Swagger UI at /docs.
 * - Every schema of schemas/ with an `$id` is registered here (validation and
 *   serialization resolve `ref()` to it) and is `#/components/schemas/<$id>`.
 * - Each route's security requirement follows from its auth mode (securityOf).
 * - Tags come with descriptions, in reading order (lib/openapi/tags.ts).
 * - CORS preflights (OPTIONS) are left out: no client calls them.
 */
/** Redoc's grouping of the tags; an extension the plugin's types do not list. */
const tagGroups: object = { 'x-tagGroups': X_TAG_GROUPS }

export default fp(async (fastify) => {
  for (const schema of await componentSchemas()) fastify.addSchema(schema)
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hosted ERP portal API',
        version: '1',
        description: 'JSON API of the hosted-ERP control plane. Every answer has `success`; errors use one envelope ' +
          '`{ success: false, error: { code, message, details? }, request_id }`. How to generate a typed client: docs/api.md.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }
      },
      servers: [{ url: fastify.config.BASE_URL }],
      tags: TAGS,
      ...tagGroups,
      components: {
        securitySchemes: securitySchemes(fastify.config.BASE_URL, { metricsRoute: fastify.config.METRICS_TOKEN !== undefined && fastify.config.METRICS_PORT === undefined })
      }
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (schema === undefined) return { schema, url }
      if ([route.method].flat().includes('OPTIONS')) return { schema: { ...schema, hide: true }, url }
      return { schema: { ...schema, security: securityOf(authModeOf(url, route.config)) } as typeof schema, url }
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
