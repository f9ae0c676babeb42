import createError from '@fastify/error'

/**
 * Application errors carry a stable machine-readable `code`, an HTTP status and
 * a human message; one error handler turns them into the envelope
 * `{ success: false, error: { code, message, details? }, request_id }`.
 * Services throw these and know nothing else about HTTP; MCP tools map the
 * same code and message into tool errors.
 */
export interface AppError extends Error {
  code: string
  statusCode: number
  details?: unknown
}

export type AppErrorFactory = ((message?: string, details?: unknown) => AppError) & { code: string, statusCode: number }

const appErrorCodes = new Map<string, number>()

/**
 * Every code defined so far with its status (codes are defined when their module loads), so a
 * test can hold them all to the naming rule of docs/api.md.
 */
export function definedErrors (): Array<{ code: string, statusCode: number }> {
  return [...appErrorCodes].map(([code, statusCode]) => ({ code, statusCode }))
}

export function defineError (code: string, defaultMessage: string, statusCode: number): AppErrorFactory {
  if (appErrorCodes.has(code)) throw new Error(`Error code ${code} is defined twice`)
  appErrorCodes.set(code, statusCode)
  const ErrorClass = createError(code, '%s', statusCode)
  const factory = (message = defaultMessage, details?: unknown): AppError => {
    const error = new ErrorClass(message) as AppError
    if (details !== undefined) error.details = details
    return error
  }
  return Object.assign(factory, { code, statusCode })
}

export function isAppError (error: unknown): error is AppError {
  return error instanceof Error && appErrorCodes.has((error as AppError).code)
}

// No generic "not found": a missing resource answers its own 404 `<THING>_NOT_FOUND` (docs/api.md),
// defined in its room's errors file; NOT_FOUND is left to requests the framework itself cannot place.
export const Forbidden = defineError('FORBIDDEN', 'You are not allowed to do this', 403)
export const Unauthorized = defineError('UNAUTHORIZED', 'Authentication required', 401)
export const Conflict = defineError('CONFLICT', 'Conflict', 409)
export const RateLimited = defineError('RATE_LIMITED', 'Too many requests', 429)

/**
 * Input the service refuses for its form, where a schema could have said so: the same
 * 400 VALIDATION_FAILED a schema failure answers, naming the field (and the allowed values).
 */
export const ValidationFailed = defineError('VALIDATION_FAILED', 'The request is invalid', 400)

export interface FieldIssue { field: string, in: string, message: string, allowed?: unknown[] }

/** One field's refusal in the validation envelope's shape: "<field> <message>", details.fields[]. */
export function invalidField (field: string, message: string, options: { in?: string, allowed?: readonly unknown[] } = {}): AppError {
  const issue: FieldIssue = { field, in: options.in ?? 'body', message }
  if (options.allowed !== undefined) issue.allowed = [...options.allowed]
  return ValidationFailed(`${field} ${message}`, { fields: [issue] })
}
