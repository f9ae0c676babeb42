import type { FastifyInstance } from 'fastify'
import { oneTimeLinkKey } from './one-time-token.ts'

const HOUR = 60 * 60_000

/**
 * The rate limits of a route that uses an e-mailed link's token (password reset, e-mail
 * confirmation; the API route and its built-in page share them by name): PASSWORD_RESET_LIMIT_PER_IP
 * per hour per client address, and as many per link, keyed by the token's hash.
 */
export function oneTimeLinkLimits (fastify: FastifyInstance, name: string) {
  const max = fastify.config.PASSWORD_RESET_LIMIT_PER_IP
  return {
    onRequest: fastify.limitPerIp(name, { max, timeWindow: HOUR }),
    preValidation: fastify.limitBy({ name: `${name}:link`, max, timeWindowMs: HOUR, key: oneTimeLinkKey })
  }
}
