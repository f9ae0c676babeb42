import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { responses } from '../../schemas/common.ts'
import { ProtectedResourceMetadata } from '../../schemas/oauth.ts'

/** RFC 9728 metadata for /api/mcp, at both places MCP clients look for it. */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const base = fastify.config.BASE_URL
  const metadata = {
    resource: `${base}/api/mcp`,
    authorization_servers: [base],
    scopes_supported: ['mcp'],
    bearer_methods_supported: ['header']
  }

  const places = [
    { url: '/oauth-protected-resource', operationId: 'getProtectedResourceMetadata' },
    { url: '/oauth-protected-resource/api/mcp', operationId: 'getMcpProtectedResourceMetadata' }
  ]
  for (const { url, operationId } of places) {
    fastify.get(url, {
      schema: {
        tags: ['oauth'],
        operationId,
        summary: 'Protected resource metadata (RFC 9728)',
        description: 'Public and credential-free: any origin may read it and send a preflight for it (browser-based MCP clients do; plugins/external/cors.ts).',
        response: responses({ 200: ProtectedResourceMetadata })
      }
    }, async () => metadata)
  }
}

export default routes
