/** Phrases of the validation messages for people (validation-messages.ts): types, formats, values, bounds. */

export type Schema = Record<string, unknown>

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null'
}

export const FORMAT_NAMES: Record<string, string> = {
  email: 'a valid e-mail address',
  uri: 'a valid URL',
  url: 'a valid URL',
  uuid: 'a valid UUID',
  'date-time': 'a date and time such as 2026-01-31T12:00:00Z',
  date: 'a date such as 2026-01-31',
  time: 'a time such as 12:00:00Z',
  ipv4: 'a valid IPv4 address',
  ipv6: 'a valid IPv6 address',
  hostname: 'a valid host name'
}

export function oneOf (field: string, allowed: unknown[]): { field: string, message: string, allowed: unknown[] } {
  if (allowed.length === 1) return { field, message: `must be ${show(allowed[0])}`, allowed }
  return { field, message: `must be one of: ${allowed.map(show).join(', ')}`, allowed }
}

function show (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
}

export function typeList (type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : String(type).split(',')
  const names = [...new Set(types.map((name) => TYPE_NAMES[name.trim()] ?? name.trim()))]
  return names.length <= 1 ? (names[0] ?? 'of another type') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
}

/** "must be between 3 and 200 characters" when the schema sets both bounds, else the one that failed. */
export function range (schema: Schema, params: Record<string, unknown>, lowKey: string, highKey: string, failed: string, unit?: string, verb = 'be'): string {
  const low = typeof schema[lowKey] === 'number' ? schema[lowKey] : undefined
  const high = typeof schema[highKey] === 'number' ? schema[highKey] : undefined
  const limit = Number(params.limit ?? (failed === lowKey ? low : high))
  const units = (n: number) => unit === undefined ? '' : ` ${unit}${n === 1 ? '' : 's'}`
  if (low !== undefined && high !== undefined) return `must ${verb} between ${low} and ${high}${units(high)}`
  if (failed === lowKey) return `must ${verb} at least ${limit}${units(limit)}`
  return `must ${verb} at most ${limit}${units(limit)}`
}
