/**
 * Text PostgreSQL can store: no NUL character (text and jsonb refuse it) and no
 * lone UTF-16 surrogate (it has no UTF-8 form; jsonb refuses `\ud800` too).
 * Checks a string, or every string (keys included) inside arrays and objects.
 */
export function isStorableText (value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\0') && value.isWellFormed()
  if (Array.isArray(value)) return value.every(isStorableText)
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => isStorableText(key) && isStorableText(item))
  }
  return true
}
