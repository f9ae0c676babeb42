import { Type, type TSchema } from 'typebox'

/** A code a route can answer, with its status: what `defineError` returns (lib/errors.ts), or a code of the framework's. */
export interface ErrorCode { code: string, statusCode: number }

/** What a route declares it can refuse with: an error of lib/errors.ts (its code and status), or a bare status. */
export type ErrorDeclaration = number | ErrorCode

/**
 * What every route can answer whatever it declares: its input refused by the schema, the
 * database out of reach, a fault of ours. Named here, not restated by each route.
 */
export const EVERY_ROUTE_ANSWERS: ErrorCode[] = [
  { code: 'VALIDATION_FAILED', statusCode: 400 },
  { code: 'INTERNAL_ERROR', statusCode: 500 },
  { code: 'DATABASE_UNAVAILABLE', statusCode: 503 }
]

/**
 * Statuses whose code is always the framework's own (plugins/app/http/envelope.ts): a route that
 * declares one of them bare answers that code. Other bare statuses say nothing of their codes.
 */
const GENERIC_CODES: Record<number, string> = {
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED'
}

/** The key under which each error answer of the OpenAPI document lists its codes. */
export const ERROR_CODES_KEY = 'x-error-codes'

/**
 * The error answers of a route, one per status, each the error envelope with the codes it
 * carries: listed under `x-error-codes` and named in the description, so a generated client
 * (and a person reading the document) knows every code of every operation. Built from the one
 * declaration each route makes (`responses()`), never written out by hand.
 */
export function errorResponses (declared: ErrorDeclaration[]): Record<number, TSchema> {
  const codes = new Map<number, Set<string>>()
  for (const declaration of [...EVERY_ROUTE_ANSWERS, ...declared]) {
    const status = typeof declaration === 'number' ? declaration : declaration.statusCode
    const known = codes.get(status) ?? new Set<string>()
    const code = typeof declaration === 'number' ? GENERIC_CODES[declaration] : declaration.code
    if (code !== undefined) known.add(code)
    codes.set(status, known)
  }
  const answers: Record<number, TSchema> = {}
  for (const [status, set] of [...codes].sort(([a], [b]) => a - b)) {
    const list = [...set].sort()
    answers[status] = Type.Ref('ErrorEnvelope', {
      description: list.length === 0 ? 'An error envelope' : `An error envelope; \`error.code\` is one of: ${list.map((code) => `\`${code}\``).join(', ')}`,
      ...(list.length === 0 ? {} : { [ERROR_CODES_KEY]: list })
    })
  }
  return answers
}
