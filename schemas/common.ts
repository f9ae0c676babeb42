import { Type, type TSchema } from 'typebox'

export const Id = Type.String({ format: 'uuid', description: 'Identifier (UUID)' })
export const IdParams = Type.Object({ id: Id })

/**
 * An instance's id: a positive integer from a bigint identity. The ceiling is
 * 2^53 - 1 (Number.MAX_SAFE_INTEGER), the largest integer a JavaScript client
 * (and the JSON parsers of most languages) reads exactly; a sequence that
 * counts one by one never gets there.
 */
export const InstanceId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Instance id (a positive integer)', examples: [42] })
export const InstanceIdParams = Type.Object({ id: InstanceId })

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_FAILED, NOT_FOUND' }),
    message: Type.String({ description: 'Human-readable explanation' }),
    details: Type.Optional(Type.Unknown({ description: 'Structured detail, e.g. the failing fields' }))
  }),
  request_id: Type.String({ description: 'Echoed in the X-Request-Id header and in every log line of the request' })
}, { $id: 'ErrorEnvelope', description: 'Every error answer has this shape' })

export const SuccessOnly = Type.Object({ success: Type.Literal(true) })

/** Extends a success schema with `success: true`. */
export function Success<T extends Record<string, TSchema>> (properties: T, options: { description?: string } = {}) {
  return Type.Object({ success: Type.Literal(true), ...properties }, options)
}

/** Optional in the document (they have defaults); always present after validation fills the defaults. */
export const Pagination = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Page number, from 1' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (at most 100)' }))
})

/** The page a query asks for, with the defaults applied (validation fills them; types cannot know). */
export function pageOf (query: { page?: number, per_page?: number }): { page: number, per_page: number } {
  return { page: query.page ?? 1, per_page: query.per_page ?? 25 }
}

const ErrorRef = Type.Ref('ErrorEnvelope')

/**
 * Response map for a route: the given success statuses plus the error
 * statuses every route can answer (validation, auth, rate limit, server).
 */
export function responses<T extends Record<number, TSchema>> (success: T, errorStatuses: number[] = []) {
  const errors: Record<number, TSchema> = {}
  for (const status of [400, 500, ...errorStatuses]) errors[status] = ErrorRef
  return { ...errors, ...success } as T & Record<number, TSchema>
}

/** Error statuses of an authenticated route. */
export const AUTHENTICATED = [401]
