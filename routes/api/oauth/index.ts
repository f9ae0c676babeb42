import type { FastifyPluginAsync } from 'fastify'
import grants from './grants.ts'
import handoff from './handoff.ts'
import register from './register.ts'

/** Agent access, the portal's side (the auth server itself is auth-server/; its registration endpoint is forwarded here). */
const routes: FastifyPluginAsync = async (fastify) => {
  await fastify.register(handoff)
  await fastify.register(grants)
  await fastify.register(register)
}

export default routes
