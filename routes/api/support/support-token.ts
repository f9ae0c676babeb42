import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { defineError } from '../../../lib/errors.ts'

export const SupportApiDisabled = defineError('SUPPORT_API_DISABLED', 'The support API is off (SUPPORT_API_TOKEN is not set)', 404)
export const SupportTokenInvalid = defineError('SUPPORT_TOKEN_INVALID', 'Send the support API token in the X-Support-Token header', 401)

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * onRequest hook for the operator routes: before parsing or validation, so a
 * disabled feature or a wrong token never reaches the handlers. Comparing
 * SHA-256 digests keeps the comparison constant-time whatever the lengths.
 */
export function requireSupportToken (expected: string | undefined) {
  const expectedDigest = expected === undefined ? undefined : digest(expected)
  return async (request: FastifyRequest): Promise<void> => {
    if (expectedDigest === undefined) throw SupportApiDisabled()
    const given = request.headers['x-support-token']
    if (typeof given !== 'string' || !timingSafeEqual(digest(given), expectedDigest)) throw SupportTokenInvalid()
  }
}
