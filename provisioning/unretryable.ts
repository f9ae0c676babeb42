/**
 * A provisioning failure that retrying cannot fix (an image that does not exist
 * and cannot be pulled, a configuration the backend refuses): the instance's job
 * fails at once instead of repeating it, and the tenant is told `tenantMessage`,
 * in their words; the error's own message (hosts, settings) is for the log.
 */
export interface Unretryable {
  readonly unretryable: true
  readonly tenantMessage: string
}

export function unretryable<T extends Error> (error: T, tenantMessage: string): T & Unretryable {
  return Object.assign(error, { unretryable: true as const, tenantMessage })
}

export function isUnretryable (error: unknown): error is Error & Unretryable {
  return error instanceof Error && (error as Partial<Unretryable>).unretryable === true && typeof (error as Partial<Unretryable>).tenantMessage === 'string'
}
