import { hash, verify } from '@node-rs/argon2'
import { normalizeEmail } from '../../../lib/email.ts'
import { defineError } from '../../../lib/errors.ts'

/** argon2id with the OWASP-recommended minimum (19 MiB, 2 passes, 1 lane). */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export const WeakPassword = defineError('WEAK_PASSWORD', 'Password does not meet the policy', 400)

export const PASSWORD_MIN_LENGTH = 10

export function hashPassword (password: string): Promise<string> {
  return hash(password, ARGON2ID)
}

export async function verifyPassword (passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}

/**
 * Verifying against this when the account does not exist keeps the answer time
 * the same for unknown e-mails and wrong passwords.
 */
let dummyHash: Promise<string> | undefined
export async function burnPasswordCheck (password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password-0000')
  await verifyPassword(await dummyHash, password)
}

/** At least 10 characters and not the e-mail address (or its local part). */
export function assertPasswordPolicy (password: string, email: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw WeakPassword(`Password must be at least ${PASSWORD_MIN_LENGTH} characters`, { field: 'password' })
  }
  const lowered = password.toLowerCase()
  const normalizedEmail = normalizeEmail(email)
  if (lowered === normalizedEmail || lowered === normalizedEmail.split('@')[0]) {
    throw WeakPassword('Password must not be your e-mail address', { field: 'password' })
  }
}
