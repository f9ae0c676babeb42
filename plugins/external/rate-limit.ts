import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyRequest, onRequestAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify'
import { RateLimited } from '../../lib/errors.ts'
import { createPgCounters, pgStoreFor } from '../../lib/rate-limit/pg-store.ts'

export interface KeyedLimit {
  name: string
  max: number
  timeWindowMs: number
  /** The thing being limited, e.g. the normalised e-mail of a login attempt. */
  key: (request: FastifyRequest) => string
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * A limit on something other than the client IP (an account, an e-mail),
     * on the same shared counters. @fastify/rate-limit runs at most one of its
     * limiters per request, so a second limit on a route needs this.
     */
    limitBy: (limit: KeyedLimit) => preValidationAsyncHookHandler
    /** A limit per client IP (@fastify/rate-limit), checked before the body is parsed. */
    limitPerIp: (name: string, limit: { max: number, timeWindow: number }) => onRequestAsyncHookHandler
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))
const tooMany = (ttlMs: number) =>
  RateLimited(`Too many attempts; try again in ${seconds(ttlMs)} seconds`, { retry_after_seconds: seconds(ttlMs) })

/**
 * Rate limiting is opt-in per route (login, signup, token routes). Counters live
 * in PostgreSQL so that all replicas share them. Exceeding a limit answers 429
 * with Retry-After, in the standard error envelope.
 */
export default fp(async (fastify) => {
  const counters = createPgCounters(fastify.sql)
  const { rateLimitRefusals } = fastify.serviceMetrics
  await fastify.register(rateLimit, {
    global: false,
    store: pgStoreFor(counters),
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (_request, context) => tooMany(context.ttl),
    // Keys are `<limit name>:ip:<address>`: only the name becomes a label.
    onExceeded: (_request, key) => { rateLimitRefusals.inc({ limit: key.split(':ip:', 1)[0] }) }
  })

  fastify.decorate('limitPerIp', (name: string, limit: { max: number, timeWindow: number }) =>
    fastify.rateLimit({ ...limit, keyGenerator: (request) => `${name}:ip:${request.ip}` }))

  fastify.decorate('limitBy', (limit: KeyedLimit): preValidationAsyncHookHandler => async (request, reply) => {
    const hit = await counters.hit(`${limit.name}:${limit.key(request)}`, limit.timeWindowMs)
    if (hit.current > limit.max) {
      rateLimitRefusals.inc({ limit: limit.name })
      reply.header('retry-after', seconds(hit.ttl))
      throw tooMany(hit.ttl)
    }
  })
}, { name: 'rate-limit', dependencies: ['orm', 'prometheus'] })
