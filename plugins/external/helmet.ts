import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'

/** Security headers on every answer, including errors and the docs UI. */
export default fp(async (fastify) => {
  // Asking browsers to upgrade to https only makes sense when the portal is served over https.
  const servedOverHttps = fastify.config.BASE_URL.startsWith('https:')
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
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: servedOverHttps ? [] : null
      }
    },
    crossOriginResourcePolicy: { policy: 'same-site' }
  })
}, { name: 'helmet', dependencies: ['env'] })
