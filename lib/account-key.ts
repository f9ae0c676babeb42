import type { FastifyRequest } from 'fastify'
import { normalizeEmail } from './email.ts'

/** Rate-limit key of the account a request names: the normalized e-mail in a body field, from any number of IPs. */
export function accountKey (field: string): (request: FastifyRequest) => string {
  return (request) => {
    const value = (request.body as Record<string, unknown> | undefined)?.[field]
    return typeof value === 'string' ? normalizeEmail(value) : '-'
  }
}
