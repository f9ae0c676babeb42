import { ISO_COUNTRY_CODES } from './country-codes.ts'

/**
 * Normalisers for the codes a company's settings hold. Each answers the
 * canonical form of a valid input, or undefined; the canonical form is itself
 * valid and unchanged by a second pass.
 */

export const COUNTRY_CODES: ReadonlySet<string> = new Set(ISO_COUNTRY_CODES)
export const CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))
/** ICU's canonical IANA zone names, plus UTC (which ICU lists only as an alias). */
export const TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
/** The `language` column's length. */
export const LANGUAGE_TAG_MAX_LENGTH = 16

/** ISO 3166-1 alpha-2, any case in, upper case out: " de" → "DE". */
export function normalizeCountryCode (value: string): string | undefined {
  const code = value.trim().toUpperCase()
  return COUNTRY_CODES.has(code) ? code : undefined
}

/** ISO 4217, any case in, upper case out: "eur" → "EUR". */
export function normalizeCurrencyCode (value: string): string | undefined {
  const code = value.trim().toUpperCase()
  return CURRENCY_CODES.has(code) ? code : undefined
}

/**
 * An IANA time zone name, matched without case; aliases resolve to ICU's
 * canonical name ("europe/paris" → "Europe/Paris", "US/Eastern" →
 * "America/New_York", "Etc/UTC" → "UTC"). UTC offsets such as "+01:00" are
 * not zone names: they ignore daylight saving time.
 */
export function normalizeTimeZone (value: string): string | undefined {
  const name = value.trim()
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return undefined
  let resolved: string
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
  return TIME_ZONES.has(resolved) ? resolved : undefined
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' })
const scriptNames = new Intl.DisplayNames(['en'], { type: 'script', fallback: 'none' })
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })

/** DisplayNames throws for some well-formed codes ("und") and answers undefined for unknown ones. */
function hasName (names: Intl.DisplayNames, code: string): boolean {
  try {
    return names.of(code) !== undefined
  } catch {
    return false
  }
}

/**
 * A well-formed BCP 47 tag in canonical form ("EN-us" → "en-US", "art-lojban"
 * → "jbo") whose language, script and region are real ones: syntax alone would
 * accept "xyz" or "en-XX". Regions are ISO countries or UN M.49 areas ("es-419").
 * Odoo and POSIX spell tags with underscores ("pt_BR"); those are accepted too.
 */
export function normalizeLanguageTag (value: string): string | undefined {
  let tag: string | undefined
  try {
    tag = Intl.getCanonicalLocales(value.trim().replaceAll('_', '-'))[0]
  } catch {
    return undefined
  }
  if (tag === undefined || tag.length > LANGUAGE_TAG_MAX_LENGTH) return undefined
  const { language, script, region } = new Intl.Locale(tag)
  if (!hasName(languageNames, language)) return undefined
  if (script !== undefined && !hasName(scriptNames, script)) return undefined
  if (region !== undefined && !(/^\d{3}$/.test(region) ? hasName(regionNames, region) : COUNTRY_CODES.has(region))) return undefined
  return tag
}
