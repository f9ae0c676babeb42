import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'

/** application/x-www-form-urlencoded bodies (login and consent forms, OAuth handoff). */
export default fp(async (fastify) => {
  await fastify.register(formbody, { bodyLimit: fastify.config.BODY_LIMIT })
}, { name: 'formbody', dependencies: ['env'] })
