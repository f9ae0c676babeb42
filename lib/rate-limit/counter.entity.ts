import { defineEntity, p } from '@mikro-orm/core'
import { timestamp } from '../../database/columns.ts'

/**
 * Fixed-window counters behind @fastify/rate-limit, kept in PostgreSQL so that
 * every portal replica sees the same counts. Only touched with raw SQL (one
 * atomic upsert per hit); the entity exists so migrations manage the table.
 */
const RateLimitCounterSchema = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counters',
  properties: {
    key: p.string().length(300).primary(),
    hits: p.integer(),
    resetAt: timestamp().index()
  }
})

export class RateLimitCounter extends RateLimitCounterSchema.class {}
RateLimitCounterSchema.setClass(RateLimitCounter)
