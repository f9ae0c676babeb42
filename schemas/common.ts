import { Type, type TNumberOptions, type TSchema } from 'typebox'

/** PostgreSQL `integer` (int4): the largest value the column holds. */
export const INT4_MAX = 2_147_483_647
/** A bigint column read as a JavaScript number: the largest integer read exactly (2^53 - 1). */
export const BIGINT_MAX = Number.MAX_SAFE_INTEGER

/**
 * Every integer in a schema has both bounds, so a value past the column
 * (2^63 in a query string, which coercion turns into a float) is a 400, never a
 * database error. An int4 column: 0 to 2^31 - 1 unless narrowed.
 */
export function Int4 (options: TNumberOptions = {}) {
  return Type.Integer({ minimum: 0, maximum: INT4_MAX, ...options })
}

/** An integer stored in a bigint column: 0 to 2^53 - 1 unless narrowed. */
export function BigInt53 (options: TNumberOptions = {}) {
  return Type.Integer({ minimum: 0, maximum: BIGINT_MAX, ...options })
}

/** A number with finite bounds (Ajv also refuses NaN and Infinity: lib/validation.ts). */
export function FiniteNumber (options: TNumberOptions = {}) {
  return Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, ...options })
}

export const Id = Type.String({ format: 'uuid', description: 'Identifier (UUID)' })
export const IdParams = Type.Object({ id: Id })

/**
 * An instance's id: a positive integer from a bigint identity. The ceiling is
 * 2^53 - 1 (Number.MAX_SAFE_INTEGER), the largest integer a JavaScript client
 * (and the JSON parsers of most languages) reads exactly; a sequence that
 * counts one by one never gets there.
 */
export const InstanceId = BigInt53({ minimum: 1, description: 'Instance id (a positive integer)', examples: [42] })
export const InstanceIdParams = Type.Object({ id: InstanceId })

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_FAILED, TICKET_NOT_FOUND' }),
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
  page: Type.Optional(Int4({ minimum: 1, default: 1, description: 'Page number, from 1' })),
  per_page: Type.Optional(Int4({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (at most 100)' }))
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
  // 503: any route that reads the database answers DATABASE_UNAVAILABLE while it cannot be reached.
  for (const status of [400, 500, 503, ...errorStatuses]) errors[status] = ErrorRef
  return { ...errors, ...success } as T & Record<number, TSchema>
}

/** Error statuses of an authenticated route. */
export const AUTHENTICATED = [401]
