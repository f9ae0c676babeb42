import type { FastifyPluginAsync } from 'fastify'
import grants from './grants.ts'
import handoff from './handoff.ts'
import protectedResource from './protected-resource.ts'

/** Agent access, the portal's side (the auth server itself is auth-server/). */
const routes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(handoff)
  await fastify.register(grants)
  await fastify.register(protectedResource)
}

export default routes
