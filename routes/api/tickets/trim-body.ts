import type { FastifyRequest } from 'fastify'
import { trimTopLevelStrings } from '../../../lib/trim.ts'

/** preValidation hook: the body's top-level strings trimmed before the schema checks their lengths. */
export async function trimBodyStrings (request: FastifyRequest): Promise<void> {
  request.body = trimTopLevelStrings(request.body)
}
