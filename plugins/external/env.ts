import fp from 'fastify-plugin'
import type { AppConfig } from '../../config/env.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig
  }
}

/** Exposes the validated configuration (loaded once, before the app is built) as `fastify.config`. */
export default fp<{ config: AppConfig }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'env' })
