import type { FastifyError, FastifyReply } from 'fastify'
import { defineError, isAppError } from '../../../lib/errors.ts'
import { findUnstorableText } from '../../../lib/storable-text.ts'
import { describeIssues, type ValidationIssue } from './validation-messages.ts'
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../../lib/database-unavailable.ts'
import { noteErrorCode } from '../../../lib/access-log.ts'

export const InvalidCharacter = defineError('INVALID_CHARACTER', 'Input contains a character that is not allowed', 400)

/** Refuses input holding text PostgreSQL or a URL encoder cannot take (lib/storable-text.ts), naming where. */
export function assertStorableText (value: unknown, part: string): void {
  const problem = findUnstorableText(value)
  if (problem === undefined) return
  const { field, message } = problem
  throw InvalidCharacter(`The ${part} field ${field} ${message}`, { fields: [{ field, in: part, message }] })
}

export interface ErrorBody {
  code: string
  message: string
  details?: unknown
}

/** The one shape of every REST error: `{ success: false, error: { code, message, details? }, request_id }`. */
export function sendError (reply: FastifyReply, status: number, error: ErrorBody): FastifyReply {
  noteErrorCode(reply, error.code)
  return reply.code(status).send({ success: false, error, request_id: reply.request.id })
}

/** Fastify's own error codes, renamed into our vocabulary. */
const FRAMEWORK_CODES: Record<string, { code: string, message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type; send application/json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_BODY', message: 'Body cannot be empty when Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_JSON', message: 'Body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_BODY', message: 'Content-Length does not match the body' },
  FST_ERR_BAD_URL: { code: 'BAD_URL', message: 'The URL is malformed' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'URI_TOO_LONG', message: 'A path segment is too long' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'BAD_REQUEST' }
}

const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE'
}

/** Maps any thrown error to a status and the public error body. 5xx bodies never carry internals. */
export function toErrorBody (error: FastifyError): { status: number, body: ErrorBody } {
  if (Array.isArray(error.validation)) {
    return { status: 400, body: validationBody(error.validation as ValidationIssue[], error.validationContext ?? 'body') }
  }
  if (isDatabaseUnavailable(error)) {
    return { status: 503, body: { code: 'DATABASE_UNAVAILABLE', message: `The database cannot be reached right now; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds` } }
  }
  const status = statusOf(error)
  if (isAppError(error)) {
    const body: ErrorBody = { code: error.code, message: error.message }
    if (error.details !== undefined) body.details = error.details
    return { status, body }
  }
  if (status >= 500) {
    return { status, body: { code: status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR', message: status === 503 ? 'Service temporarily unavailable' : 'Internal server error' } }
  }
  const framework = error.code === undefined ? undefined : FRAMEWORK_CODES[error.code]
  return {
    status,
    body: {
      code: framework?.code ?? STATUS_CODES[status] ?? 'BAD_REQUEST',
      message: framework?.message ?? error.message
    }
  }
}

function statusOf (error: FastifyError): number {
  const status = error.statusCode ?? (error as { status?: number }).status
  return typeof status === 'number' && status >= 400 && status <= 599 ? status : 500
}

/**
 * Every schema failure: 400 VALIDATION_FAILED, one `details.fields[]` entry per field
 * ({ field, in, message, allowed? }), and a message for people that starts with the field:
 * "priority must be one of: low, normal, high, urgent; subject is required".
 */
export function validationBody (issues: ValidationIssue[], context: string): ErrorBody {
  const fields = describeIssues(issues, context)
  const message = fields.length === 0 ? `The ${context} is invalid` : fields.map((f) => `${f.field} ${f.message}`).join('; ')
  return { code: 'VALIDATION_FAILED', message, details: { fields } }
}

/** Query coercion turns "Infinity" or "1e400" into Infinity, which ajv's integer check lets through. */
export function findNonFiniteNumber (value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : (path || 'value')
  if (depth > 8 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = findNonFiniteNumber(child, path ? `${path}.${key}` : key, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}
