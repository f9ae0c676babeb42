import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'

/** Security headers on every answer, including errors and the docs UI. */
export default fp(async (fastify) => {
  await fastify.register(helmet, {
    global: true,
    // Swagger UI needs its own inline assets; it sets its CSP (see swagger.ts).
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"]
      }
    },
    crossOriginResourcePolicy: { policy: 'same-site' }
  })
}, { name: 'helmet' })
