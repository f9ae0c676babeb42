/**
 * Whether an error means "PostgreSQL cannot be reached now" (down, restarting, failing over, or
 * the network to it is gone), as opposed to a bad query. Such an error answers 503
 * DATABASE_UNAVAILABLE with Retry-After instead of a 500: the request itself was fine, and the
 * same request will work once the database is back. The pool reconnects on its own.
 *
 * Errors arrive raw from `pg` (the tenant SQL path), wrapped by MikroORM (DriverException copies
 * the driver error's fields), or as Node's AggregateError of one connect attempt per address.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])
/** SQLSTATE: class 08 (connection exception); 57P01-57P03 (admin or crash shutdown, cannot connect now). */
const SERVER_GOING_AWAY = new Set(['57P01', '57P02', '57P03'])
const POOL_MESSAGES = [
  'Connection terminated', // pg: the server closed the socket mid-query
  'timeout exceeded when trying to connect', // pg-pool: connectionTimeoutMillis
  'Client has encountered a connection error and is not queryable',
  'the database system is starting up',
  'the database system is shutting down'
]

export function isDatabaseUnavailable (error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false
  const { code, message, cause, errors, name } = error as { code?: unknown, message?: unknown, cause?: unknown, errors?: unknown, name?: unknown }
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_GOING_AWAY.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true
  if (name === 'ConnectionException') return true
  if (typeof message === 'string' && POOL_MESSAGES.some((text) => message.includes(text))) return true
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true
  return isDatabaseUnavailable(cause, depth + 1)
}

/** Seconds a client is told to wait (Retry-After) before trying again. */
export const DATABASE_RETRY_AFTER_SECONDS = 5
