import type { FastifyPluginAsync } from 'fastify'
import { proxyToAuthServer } from '../../lib/auth-server-proxy.ts'

/** The authorization server's metadata and keys, forwarded to auth-server/ (see auth-server/README.md). */
const routes: FastifyPluginAsync = async (fastify) => {
  proxyToAuthServer(fastify, [
    { url: '/oauth-authorization-server', summary: 'Authorization server metadata (RFC 8414)', operations: { GET: 'getAuthorizationServerMetadata', OPTIONS: 'preflightAuthorizationServerMetadata' } },
    { url: '/openid-configuration', summary: 'Discovery document (the same metadata)', operations: { GET: 'getOpenidConfiguration', OPTIONS: 'preflightOpenidConfiguration' } },
    { url: '/jwks.json', summary: 'Public keys that sign access tokens (RFC 7517)', operations: { GET: 'getJwks', OPTIONS: 'preflightJwks' } }
  ])
}

export default routes
