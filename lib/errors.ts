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

const appErrorCodes = new Set<string>()

export function defineError (code: string, defaultMessage: string, statusCode: number): AppErrorFactory {
  if (appErrorCodes.has(code)) throw new Error(`Error code ${code} is defined twice`)
  appErrorCodes.add(code)
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

export const NotFound = defineError('NOT_FOUND', 'Not found', 404)
export const Forbidden = defineError('FORBIDDEN', 'You are not allowed to do this', 403)
export const Unauthorized = defineError('UNAUTHORIZED', 'Authentication required', 401)
export const Conflict = defineError('CONFLICT', 'Conflict', 409)
export const RateLimited = defineError('RATE_LIMITED', 'Too many requests', 429)
