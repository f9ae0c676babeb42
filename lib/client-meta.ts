import type { FastifyRequest } from 'fastify'
import type { ClientMeta } from '../plugins/app/auth/auth.service.ts'

/** What a session records about the client that opened it. */
export function clientMeta (request: FastifyRequest): ClientMeta {
  const userAgent = request.headers['user-agent']
  return { ip: request.ip, ...(userAgent === undefined ? {} : { userAgent }) }
}
