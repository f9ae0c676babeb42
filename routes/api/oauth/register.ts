import type { FastifyPluginAsync } from 'fastify'
import { proxyToAuthServer } from '../../../lib/auth-server-proxy.ts'

/** Dynamic client registration, forwarded to auth-server/ (see auth-server/README.md). Registered by ./index.ts. */
const routes: FastifyPluginAsync = async (fastify) => {
  proxyToAuthServer(fastify, [
    { url: '/register', summary: 'Register a public client (RFC 7591); no secret is issued', perMinute: 20, operations: { POST: 'registerClient', OPTIONS: 'preflightRegisterClient' } }
  ])
}

export default routes
