import { Type, type Static, type TNumberOptions, type TSchema, type TUnsafe } from 'typebox'
import { TokenInvalid, TokenMissing } from '../plugins/app/auth/auth.errors.ts'
import { errorResponses, type ErrorDeclaration } from './error-responses.ts'

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

export const SuccessOnly = Type.Object({ success: Type.Literal(true) }, { $id: 'SuccessOnly', description: 'Done; nothing more to say' })

/** Extends a success schema with `success: true`. */
export function Success<T extends Record<string, TSchema>> (properties: T, options: { $id?: string, description?: string } = {}) {
  return Type.Object({ success: Type.Literal(true), ...properties }, options)
}

/**
 * A response that is not JSON (an archive, an event stream): published under
 * its own media type only, with the headers it carries. Nothing is serialized
 * for it: the route sends a stream, or writes to the socket itself.
 */
export function mediaResponse (mediaType: string, schema: TSchema, options: { description: string, headers?: Record<string, TSchema> }) {
  return { description: options.description, ...(options.headers === undefined ? {} : { headers: options.headers }), content: { [mediaType]: { schema } } }
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

/**
 * What every paged list answers beside its rows, as `pagination` (docs/api.md,
 * "Lists and pages"): the page served, its size, and the matching rows on all pages.
 */
export const PageInfo = Type.Object({
  page: Int4({ minimum: 1, description: 'The page served, from 1' }),
  per_page: Int4({ minimum: 1, maximum: 100, description: 'Items per page' }),
  total: Int4({ description: 'Matching items on all pages; a page past the end is empty, with this total' })
}, { $id: 'PageInfo', description: 'Where this page sits in the whole list' })

/** The key that marks an inline copy of a component (ref()); the OpenAPI document turns it into a `$ref`. */
export const COMPONENT_MARK = 'x-component'

/**
 * A reference to a component: a schema of schemas/ with an `$id`, published as
 * `#/components/schemas/<$id>` so a generated client has a type of that name.
 * At run time it is an inline copy (without the `$id`, marked with
 * COMPONENT_MARK): validation and fast-json-stringify compile each route on its
 * own, as fast as a schema written in place, instead of resolving every route
 * against every registered component. The document plugin
 * (plugins/external/swagger.ts) replaces each marked copy with the `$ref`.
 * Typed as the schema itself, so handlers stay checked against it. A component
 * is never embedded in another schema without ref(): the `$id` would then
 * appear twice, which Ajv refuses.
 */
export function ref<T extends TSchema> (schema: T): TUnsafe<Static<T>> {
  const { $id: id, ...inline } = schema as T & { $id?: unknown }
  if (typeof id !== 'string') throw new Error('ref() takes a schema with an $id (a component)')
  return Type.Unsafe<Static<T>>({ ...inline, [COMPONENT_MARK]: id })
}

/** A route's response: a component by reference, anything else as it is. */
function referenced (schema: TSchema): TSchema {
  return typeof (schema as { $id?: unknown }).$id === 'string' ? ref(schema) : schema
}

/**
 * Response map for a route: the given success statuses, and its error answers from what it
 * declares it refuses with: errors of lib/errors.ts (each adds its code under its status) or
 * bare statuses; validation, the database and server faults are added for every route
 * (schemas/error-responses.ts).
 */
export function responses<T extends Record<number, TSchema>> (success: T, refusals: ErrorDeclaration[] = []) {
  const errors = errorResponses(refusals)
  const successes: Record<number, TSchema> = {}
  for (const [status, schema] of Object.entries(success)) successes[Number(status)] = referenced(schema)
  return { ...errors, ...successes } as T & Record<number, TSchema>
}

/** What an authenticated route answers without a valid portal token (plugins/app/auth). */
export const AUTHENTICATED: ErrorDeclaration[] = [TokenMissing, TokenInvalid]
