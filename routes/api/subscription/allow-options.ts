import type { FastifyContextConfig, FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { responses } from '../../../schemas/common.ts'

export const ALLOW_POST = 'POST, OPTIONS'

/**
 * Explicit OPTIONS routes for POST-only paths, so that `OPTIONS` answers 204
 * with `Allow: POST, OPTIONS` and the app's generic 405 lists OPTIONS too (CORS
 * preflight alone is a wildcard route, which the 405 handler cannot see).
 * CORS still handles preflights first: `preflightContinue` lets a preflight
 * through to this handler with its CORS headers set, and `strictPreflight: false`
 * lets a plain OPTIONS (no Origin) reach it instead of a bare 400.
 */
export function allowOnlyPost (fastify: FastifyInstance, paths: string[], tags: string[]): void {
  // @fastify/cors reads per-route `cors` options without declaring them in FastifyContextConfig.
  const config = { auth: 'none', cors: { preflightContinue: true, strictPreflight: false } } as FastifyContextConfig
  for (const path of paths) {
    fastify.options(path, {
      config,
      schema: {
        tags,
        summary: 'Allowed methods',
        description: `Answers 204 with \`Allow: ${ALLOW_POST}\` (and the CORS preflight headers for an allowed origin). Any other method than POST on this path answers 405 METHOD_NOT_ALLOWED.`,
        response: responses({ 204: Type.Null({ description: 'No content; see the Allow header' }) })
      }
    }, async (_request, reply) => reply.code(204).header('allow', ALLOW_POST).send())
  }
}
