import { HOTP, Secret, TOTP } from 'otpauth'

/**
 * TOTP (RFC 6238) as authenticator apps expect it: SHA-1, 6 digits, 30-second
 * steps, a 160-bit secret. A code is accepted for the current step and one
 * step either side (clock drift), and each step at most once per person.
 */
export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
const ALGORITHM = 'SHA1'

/** A new random secret, base32 (what apps take when typed in). */
export function newTotpSecret (): string {
  return new Secret({ size: 20 }).base32
}

/** The time step (counter) of an instant. */
export function stepAt (ms: number): number {
  return Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS)
}

/** The code of one time step. */
export function codeAt (secret: string, step: number): string {
  return HOTP.generate({ secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: TOTP_DIGITS, counter: step })
}

/** `otpauth://totp/<issuer>:<account>?secret=…&issuer=…`: what the QR code holds. */
export function otpauthUri (secret: string, issuer: string, account: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS }).toString()
}

/** Six digits, spaces allowed ("123 456"): the shape of a TOTP code, or undefined. */
export function normalizeTotpCode (input: string): string | undefined {
  const code = input.replace(/\s+/g, '')
  return /^\d{6}$/.test(code) ? code : undefined
}

/**
 * The step whose code this is, among `now - 1`, `now`, `now + 1`, and newer than
 * `lastUsedStep` (a step once accepted never is again: no replay); undefined
 * when none. Compared in constant time per step.
 */
export function matchingStep (secret: string, code: string, nowStep: number, lastUsedStep: number | null): number | undefined {
  let found: number | undefined
  for (const step of [nowStep - 1, nowStep, nowStep + 1]) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue
    if (sameCode(codeAt(secret, step), code) && found === undefined) found = step
  }
  return found
}

function sameCode (a: string, b: string): boolean {
  let diff = a.length ^ b.length
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ (b.charCodeAt(i) || 0)
  return diff === 0
}
