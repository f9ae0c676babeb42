/**
 * The one UUID shape this service accepts (any version, either case), for
 * checks made before a value reaches a `uuid` column: a malformed value there
 * is a database error, so callers test first and answer "not found" or reject.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid (value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}
