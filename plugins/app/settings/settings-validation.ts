import { ValidationFailed } from '../../../lib/errors.ts'
import { normalizeCountryCode, normalizeCurrencyCode, normalizeLanguageTag, normalizeTimeZone } from './locale-codes.ts'
import { SETTINGS_FIELD_CODES as CODES } from './settings.errors.ts'
import type { SETTINGS_DEFAULTS } from './settings.view.ts'

/** A partial update, shaped like the settings view. `null` clears an optional company field. */
export interface SettingsUpdate {
  company?: {
    name?: string
    address?: string | null
    phone?: string | null
    email?: string | null
    vat_id?: string | null
    country?: string | null
    currency?: string
    timezone?: string
    language?: string
  }
  notifications?: {
    instance_events?: boolean
    billing?: boolean
    tickets?: boolean
    weekly_report?: boolean
  }
  security?: {
    require_two_factor?: boolean
  }
}

/** `tenantName` is `tenants.name`; the rest are TenantSettings properties. */
export type SettingsTarget = 'tenantName' | keyof typeof SETTINGS_DEFAULTS

/** One validated, normalised value of an update, and what the activity feed calls it. */
export interface SettingsChange {
  target: SettingsTarget
  label: string
  value: string | boolean | null
}

type Parsed = { value: string | boolean | null } | { problem: string }
type Parser = (value: unknown) => Parsed

interface Rule {
  target: SettingsTarget
  label: string
  code: string
  parse: Parser
}

const problem = (message: string): Parsed => ({ problem: message })

/** Optional company fields: `null` or blank text clears them. */
const optional = (parse: (text: string) => Parsed): Parser => (value) => {
  if (value === null) return { value: null }
  if (typeof value !== 'string') return problem('must be a string or null')
  return value.trim() === '' ? { value: null } : parse(value.trim())
}
const required = (parse: (text: string) => Parsed): Parser => (value) =>
  typeof value === 'string' ? parse(value.trim()) : problem('must be a string')
const maxLength = (max: number) => (text: string): Parsed =>
  text.length > max ? problem(`must be at most ${max} characters`) : { value: text }
const code = (normalize: (text: string) => string | undefined, message: string) => (text: string): Parsed => {
  const normalized = normalize(text)
  return normalized === undefined ? problem(message) : { value: normalized }
}
const flag: Parser = (value) => typeof value === 'boolean' ? { value } : problem('must be true or false')

/** The pattern of ajv-formats' `email` format, so the API accepts what its schemas elsewhere accept. */
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i
const PHONE = /^\+?[0-9 ()./-]+$/
const VAT_ID = /^[A-Z0-9][A-Z0-9 ./-]{2,38}[A-Z0-9]$/

const companyName = required((text) => text === '' ? problem('must not be blank') : maxLength(200)(text))
const email = optional((text) => EMAIL.test(text) && text.length <= 254 ? { value: text.toLowerCase() } : problem('must be an e-mail address'))
const phone = optional((text) => {
  const tidy = text.replace(/\s+/g, ' ')
  const digits = tidy.replace(/\D/g, '').length
  return PHONE.test(tidy) && digits >= 5 && digits <= 20 && tidy.length <= 40
    ? { value: tidy }
    : problem('must be a phone number: 5 to 20 digits with an optional leading +, spaces and ( ) . / - (at most 40 characters)')
})
const vatId = optional((text) => {
  const tidy = text.replace(/\s+/g, ' ').toUpperCase()
  return VAT_ID.test(tidy) && /\d/.test(tidy)
    ? { value: tidy }
    : problem('must be 4 to 40 letters, digits, spaces, dots, slashes or hyphens, with at least one digit, e.g. "DE123456789"')
})

const COMPANY_RULES: Record<keyof NonNullable<SettingsUpdate['company']>, Rule> = {
  name: { target: 'tenantName', label: 'company name', code: CODES.companyName, parse: companyName },
  address: { target: 'address', label: 'address', code: CODES.companyAddress, parse: optional(maxLength(500)) },
  phone: { target: 'phone', label: 'phone', code: CODES.companyPhone, parse: phone },
  email: { target: 'email', label: 'e-mail', code: CODES.companyEmail, parse: email },
  vat_id: { target: 'vatId', label: 'VAT id', code: CODES.vatId, parse: vatId },
  country: { target: 'country', label: 'country', code: CODES.country, parse: optional(code(normalizeCountryCode, 'must be an ISO 3166-1 alpha-2 country code, e.g. "DE"')) },
  currency: { target: 'currency', label: 'currency', code: CODES.currency, parse: required(code(normalizeCurrencyCode, 'must be an ISO 4217 currency code, e.g. "EUR"')) },
  timezone: { target: 'timezone', label: 'time zone', code: CODES.timezone, parse: required(code(normalizeTimeZone, 'must be an IANA time zone, e.g. "Europe/Paris" or "UTC"')) },
  language: { target: 'language', label: 'language', code: CODES.language, parse: required(code(normalizeLanguageTag, 'must be a BCP 47 language tag of at most 16 characters, e.g. "en" or "fr-BE"')) }
}

const SECURITY_RULES: Record<keyof NonNullable<SettingsUpdate['security']>, Rule> = {
  require_two_factor: { target: 'requireTwoFactor', label: 'two-factor requirement', code: CODES.securitySetting, parse: flag }
}

const NOTIFICATION_RULES: Record<keyof NonNullable<SettingsUpdate['notifications']>, Rule> = {
  instance_events: { target: 'notifyInstanceEvents', label: 'instance event notifications', code: CODES.notificationSetting, parse: flag },
  billing: { target: 'notifyBilling', label: 'billing notifications', code: CODES.notificationSetting, parse: flag },
  tickets: { target: 'notifyTickets', label: 'ticket notifications', code: CODES.notificationSetting, parse: flag },
  weekly_report: { target: 'notifyWeeklyReport', label: 'weekly report', code: CODES.notificationSetting, parse: flag }
}

/**
 * Validates and normalises an update (any subset of fields). A refusal is
 * 400 VALIDATION_FAILED listing every failing field in `details.fields[]` as
 * `{ field, in, code, message }`, `code` saying which rule refused it.
 */
export function parseSettingsUpdate (input: SettingsUpdate): SettingsChange[] {
  const changes: SettingsChange[] = []
  const failures: Array<{ field: string, in: 'body', code: string, message: string }> = []
  const sections = [['company', COMPANY_RULES, input.company], ['notifications', NOTIFICATION_RULES, input.notifications], ['security', SECURITY_RULES, input.security]] as const
  for (const [section, rules, values] of sections) {
    if (values === undefined) continue
    for (const [key, rule] of Object.entries(rules) as Array<[string, Rule]>) {
      if (!Object.hasOwn(values, key) || (values as Record<string, unknown>)[key] === undefined) continue
      const parsed = rule.parse((values as Record<string, unknown>)[key])
      if ('problem' in parsed) failures.push({ field: `${section}.${key}`, in: 'body', code: rule.code, message: parsed.problem })
      else changes.push({ target: rule.target, label: rule.label, value: parsed.value })
    }
  }
  if (failures.length > 0) throw ValidationFailed(failures.map((f) => `${f.field} ${f.message}`).join('; '), { fields: failures })
  return changes
}
