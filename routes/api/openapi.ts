import type { FastifyPluginAsync } from 'fastify'

/** The OpenAPI 3.1 document that plugins/external/swagger.ts builds from every route's schemas (Swagger UI: /docs). */
const routes: FastifyPluginAsync = async (fastify) => {
  fastify.get('/openapi.json', {
    config: { auth: 'none' },
    schema: { hide: true }
  }, async () => fastify.swagger())
}

export default routes
