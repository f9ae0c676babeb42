/**
 * Resource quantities in the canonical form the API server reads them back in
 * (`2Gi`, not `2048Mi`; `1`, not `1000m`), so that an applied object compares
 * equal to what is stored and a second apply changes nothing.
 */

const BINARY_STEPS = ['Mi', 'Gi', 'Ti', 'Pi'] as const

function binary (amount: number, unit: 'Mi' | 'Gi'): string {
  if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`a quantity must be a positive whole number of ${unit}, not ${amount}`)
  let step = BINARY_STEPS.indexOf(unit)
  let value = amount
  while (value % 1024 === 0 && step < BINARY_STEPS.length - 1) {
    value /= 1024
    step++
  }
  return `${value}${BINARY_STEPS[step]}`
}

export const mebibytes = (mb: number): string => binary(mb, 'Mi')
export const gibibytes = (gb: number): string => binary(gb, 'Gi')

export function millicores (m: number): string {
  if (!Number.isInteger(m) || m <= 0) throw new RangeError(`CPU must be a positive whole number of millicores, not ${m}`)
  return m % 1000 === 0 ? String(m / 1000) : `${m}m`
}

const SUFFIXES: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60
}

/** A quantity as read from the API (`5Gi`, `500m`, `1e3`) as a number; NaN when it is not one. */
export function parseQuantity (value: string | undefined): number {
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]{0,2}))$/.exec(value?.trim() ?? '')
  if (match === null) return Number.NaN
  const [, number = '', exponent, suffix = ''] = match
  if (exponent !== undefined) return Number(number + exponent)
  return Number(number) * (SUFFIXES[suffix] ?? Number.NaN)
}
