import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { authModeOf, securityOf } from '../../lib/route-auth.ts'
import { componentSchemas } from '../../lib/openapi/components.ts'
import { hoistComponents } from '../../lib/openapi/hoist-components.ts'
import { ErrorEnvelope } from '../../schemas/common.ts'
import { ERROR_CODES_KEY } from '../../schemas/error-responses.ts'
import { securitySchemes } from '../../lib/openapi/security-schemes.ts'
import { TAGS, X_TAG_GROUPS } from '../../lib/openapi/tags.ts'

/**
 * OpenAPI 3.1 generated from the routes' TypeBox schemas, served at
 * /api/openapi.json (routes/api/openapi.ts), with Swagger UI at /docs.
 * - Every schema of schemas/ with an `$id` that a route uses through `ref()` is
 *   `#/components/schemas/<$id>` (lib/openapi/hoist-components.ts). Only the error
 *   envelope, which every route answers, is registered with Fastify: the others are
 *   compiled inline, so building the app costs no more for being named.
 * - Each route's security requirement follows from its auth mode (securityOf).
 * - Tags come with descriptions, in reading order (lib/openapi/tags.ts).
 * - CORS preflights (OPTIONS) are left out: no client calls them.
 */
/** Redoc's grouping of the tags; an extension the plugin's types do not list. */
const tagGroups: object = { 'x-tagGroups': X_TAG_GROUPS }

/** `get /api/instances/{id}`: an operation of the document, from a route's method and URL. */
function operationKey (method: string, url: string): string {
  return `${method.toLowerCase()} ${url.replace(/:(\w+)/g, '{$1}')}`
}

/** The codes each error status of a route's response map lists (`responses()`, schemas/common.ts). */
function codesByStatus (response: unknown): Record<string, unknown> {
  const codes: Record<string, unknown> = {}
  if (typeof response !== 'object' || response === null) return codes
  for (const [status, schema] of Object.entries(response)) {
    const listed = (schema as Record<string, unknown> | undefined)?.[ERROR_CODES_KEY]
    if (Array.isArray(listed)) codes[status] = listed
  }
  return codes
}

export default fp(async (fastify) => {
  const security = new Map<string, ReturnType<typeof securityOf>>()
  const errorCodes = new Map<string, Record<string, unknown>>()
  fastify.addSchema(ErrorEnvelope)
  const declared = new Map((await componentSchemas()).map((schema) => [schema.$id, schema as Record<string, unknown>]))
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hosted ERP portal API',
        version: '1',
        description: 'JSON API of the hosted-ERP control plane. Every answer has `success`; errors use one envelope ' +
          '`{ success: false, error: { code, message, details? }, request_id }`. How to generate a typed client: docs/api.md.'
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
      const codes = codesByStatus(schema.response)
      for (const method of [route.method].flat()) {
        security.set(operationKey(method, url), securityOf(authModeOf(url, route.config)))
        errorCodes.set(operationKey(method, url), codes)
      }
      return { schema, url }
    },
    // Set here, not in `transform`: there the plugin would drop the `token` query parameter that an
    // apiKey scheme names, and a generated client could then not pass the stream or download token.
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject
      const { openapiObject } = document
      for (const [path, item] of Object.entries(openapiObject.paths ?? {})) {
        for (const [method, operation] of Object.entries(item ?? {})) {
          const requirement = security.get(operationKey(method, path))
          if (requirement !== undefined) (operation as { security?: unknown }).security = requirement
          // Each error answer lists its codes (schemas/error-responses.ts), machine-readable beside its description.
          const responses = (operation as { responses?: Record<string, Record<string, unknown>> }).responses ?? {}
          for (const [status, codes] of Object.entries(errorCodes.get(operationKey(method, path)) ?? {})) {
            const response = responses[status]
            if (response !== undefined) response[ERROR_CODES_KEY] = codes
          }
        }
      }
      hoistComponents(openapiObject as Record<string, unknown>, declared)
      return openapiObject
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
