import { ValidationFailed } from '../../../lib/errors.ts'
import type { PriceRequest } from './pricing.ts'

export const MAX_USERS = 100_000
export const MAX_STORAGE_GB = 100_000

/** The query string as it arrives: text, or repeated values for billing_cycle. */
export interface RawRecommendationQuery {
  users?: string
  storage?: string
  billing_cycle?: string | string[]
}

export interface QueryFieldError {
  field: 'users' | 'storage'
  message: string
}

export type NormalisedQuery = { ok: true, request: PriceRequest } | { ok: false, errors: QueryFieldError[] }

/** Plain decimal notation, optionally signed and with an exponent: no hex, NaN, Infinity or separators. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

interface QuantityRule {
  field: QueryFieldError['field']
  fallback: number
  min: number
  max: number
  round: (value: number) => number
  unit: string
}

const USERS: QuantityRule = { field: 'users', fallback: 1, min: 1, max: MAX_USERS, round: Math.floor, unit: 'users' }
const STORAGE: QuantityRule = { field: 'storage', fallback: 0, min: 0, max: MAX_STORAGE_GB, round: Math.ceil, unit: 'GB' }

function quantity (text: string | undefined, rule: QuantityRule): number | QueryFieldError {
  const trimmed = text?.trim() ?? ''
  if (trimmed === '') return rule.fallback
  if (!DECIMAL.test(trimmed)) return { field: rule.field, message: `must be a number of ${rule.unit} (at most ${rule.max})` }
  // -1e400 parses to -Infinity: a negative number like any other, clamped below.
  const value = Math.max(rule.min, rule.round(Number(trimmed)))
  if (value > rule.max) return { field: rule.field, message: `must be at most ${rule.max} ${rule.unit}` }
  return value + 0 // never -0
}

/**
 * The lenient rules of GET /api/subscription/recommendation, in one place
 * (docs/billing.md, "Plan recommendation"): users default 1, rounded down, at least 1;
 * storage default 0, rounded up to whole GB, at least 0; either above its
 * maximum or not a decimal number is an error naming the field; billing_cycle
 * is `yearly` only when it is exactly that, otherwise `monthly`.
 */
export function normaliseRecommendationQuery (query: RawRecommendationQuery): NormalisedQuery {
  const users = quantity(query.users, USERS)
  const storage = quantity(query.storage, STORAGE)
  const errors = [users, storage].filter((value): value is QueryFieldError => typeof value !== 'number')
  if (typeof users !== 'number' || typeof storage !== 'number') return { ok: false, errors }
  return { ok: true, request: { users, storage, billingCycle: query.billing_cycle === 'yearly' ? 'yearly' : 'monthly' } }
}

/** The 400 VALIDATION_FAILED of any query, with `details.fields` naming each field and the message starting with it. */
export function queryValidationError (errors: QueryFieldError[]): Error {
  return ValidationFailed(errors.map((error) => `${error.field} ${error.message}`).join('; '), {
    fields: errors.map((error) => ({ field: error.field, in: 'querystring', message: error.message }))
  })
}
