/** resource.Quantity (`500m`, `1Gi`, `2`, `1e3`) as a number, for comparisons; NaN when malformed. */
const SUFFIX: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60
}

export function parseQuantity (value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value !== 'string') return Number.NaN
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/.exec(value.trim())
  if (match === null) return Number.NaN
  const [, number = '', exponent, suffix = ''] = match
  if (exponent !== undefined) return Number(number + exponent)
  return Number(number) * (SUFFIX[suffix] ?? Number.NaN)
}
