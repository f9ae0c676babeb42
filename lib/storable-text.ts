/** Deeper than this, input is refused rather than walked (no form, body or tool argument nests so deep). */
const MAX_DEPTH = 32

/** Where a value holds text the service must not take, and why. */
export interface TextProblem {
  /** Dotted path to the value (`(key)` when a key is at fault); `value` for the value itself. */
  field: string
  message: string
}

/** Why one string cannot be stored, or undefined when it can. */
function problemOf (text: string): string | undefined {
  if (text.includes('\0')) return 'must not contain U+0000'
  if (!text.isWellFormed()) return 'must be well-formed Unicode (no lone surrogate)'
  return undefined
}

/**
 * Text PostgreSQL can store and a URL encoder can encode: no NUL character
 * (text and jsonb refuse it) and no lone UTF-16 surrogate (it has no UTF-8
 * form: jsonb refuses `\ud800`, encodeURIComponent throws). Looks at a string,
 * or at every string (keys included) inside arrays and objects.
 */
export function findUnstorableText (value: unknown, path = '', depth = 0): TextProblem | undefined {
  if (typeof value === 'string') {
    const message = problemOf(value)
    return message === undefined ? undefined : { field: path || 'value', message }
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined
  if (depth >= MAX_DEPTH) return { field: path || 'value', message: `must not nest deeper than ${MAX_DEPTH} levels` }
  for (const [key, child] of Object.entries(value)) {
    const message = problemOf(key)
    if (message !== undefined) return { field: path ? `${path}.(key)` : '(key)', message }
    const found = findUnstorableText(child, path ? `${path}.${key}` : key, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

export function isStorableText (value: unknown): boolean {
  return findUnstorableText(value) === undefined
}

/**
 * Storable text with no control characters either: what goes into a URL or a
 * header and back into a page (the OAuth transaction of the login page and the handoff).
 * The same rule as a JSON Schema pattern (Ajv compiles it with the `u` flag).
 */
export const PRINTABLE_PATTERN = '^[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]*$'
const PRINTABLE = new RegExp(PRINTABLE_PATTERN, 'u')

export function isPrintableText (value: string): boolean {
  return PRINTABLE.test(value)
}
