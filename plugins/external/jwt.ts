import fp from 'fastify-plugin'
import jwt from '@fastify/jwt'

/** Portal bearer tokens: HS256 JWTs signed with JWT_SECRET (see server.ts for the default). */
export default fp(async (fastify) => {
  if (fastify.config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  await fastify.register(jwt, {
    secret: fastify.config.JWT_SECRET,
    sign: { algorithm: 'HS256', iss: fastify.config.BASE_URL, aud: 'portal', expiresIn: fastify.config.TOKEN_TTL_SECONDS },
    // Every authenticated request verifies the same few tokens again and again: remember a verified
    // token's claims until its exp (fast-jwt caps each entry there). Revocation is unaffected: the
    // session row is checked on every request.
    verify: { algorithms: ['HS256'], allowedIss: fastify.config.BASE_URL, allowedAud: 'portal', cache: 10_000 }
  })
}, { name: 'jwt', dependencies: ['env'] })
