import fp from 'fastify-plugin'

export interface Drain {
  /** True from the first moment of a graceful shutdown: readiness answers 503 and connections are not kept alive. */
  readonly draining: boolean
  start: () => void
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain
  }
}

/**
 * The first phase of a graceful shutdown (server.ts): the process keeps serving, but
 * /health/ready answers 503 so that load balancers stop sending, and every response
 * carries `Connection: close`, so that a client's kept-alive socket is closed by the
 * server right after a complete response instead of being cut while the client reuses it.
 */
export default fp(async (fastify) => {
  let draining = false
  fastify.decorate('drain', {
    get draining () { return draining },
    start () { draining = true }
  })
  fastify.addHook('preClose', async () => { draining = true })
  fastify.addHook('onSend', (_request, reply, _payload, done) => {
    if (draining) reply.header('connection', 'close')
    done()
  })
}, { name: 'drain' })
