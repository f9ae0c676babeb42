import { randomBytes } from 'node:crypto'

/** Crockford's base-32 alphabet: no I, L, O or U, so a payer can read it out and type it. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * What the payer quotes to the payment provider, e.g. `ERP-7F3K9Q2M4T8V1C6X0B5N`:
 * 100 random bits, so a reference cannot be guessed from another one.
 */
export function newPaymentReference (): string {
  const bytes = randomBytes(20)
  let code = ''
  for (const byte of bytes) code += ALPHABET[byte & 31]
  return `ERP-${code}`
}
