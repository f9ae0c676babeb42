/**
 * Money is held in integer minor units of its currency (cents, yen, fils) and
 * only turned into a decimal number at the edge, for JSON.
 */
const digitsCache = new Map<string, number>()

/** How many decimals the currency has (EUR 2, JPY 0, KWD 3), from ICU. */
export function minorDigits (currency: string): number {
  let digits = digitsCache.get(currency)
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
    digitsCache.set(currency, digits)
  }
  return digits
}

/** 4990 EUR-cents -> 49.9; exact to the currency's decimals. */
export function toMajor (minor: number, currency: string): number {
  const digits = minorDigits(currency)
  return Number((minor / 10 ** digits).toFixed(digits))
}

/** numerator / denominator rounded half up, in exact integer arithmetic (both non-negative). */
export function divideRoundHalfUp (numerator: number | bigint, denominator: number | bigint): number {
  const n = BigInt(numerator)
  const d = BigInt(denominator)
  if (d <= 0n || n < 0n) throw new RangeError('divideRoundHalfUp takes a non-negative numerator and a positive denominator')
  return Number((n * 2n + d) / (d * 2n))
}
