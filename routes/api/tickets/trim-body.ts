import type { FastifyRequest } from 'fastify'

/**
 * preValidation hook: trims the body's top-level strings so that the schema's
 * length limits apply to the text that will be stored ("   " is too short,
 * not a one-character message). Non-strings are left for the schema to refuse.
 */
export async function trimBodyStrings (request: FastifyRequest): Promise<void> {
  const body = request.body
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string') (body as Record<string, unknown>)[key] = value.trim()
  }
}
