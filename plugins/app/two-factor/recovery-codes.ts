import { createHash, randomInt } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'

/** How many single-use recovery codes a person gets when the factor is turned on. */
export const RECOVERY_CODE_COUNT = 10

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

/**
 * `xxxxx-xxxxx`: 10 characters from 31 (no 0/o, 1/l/i), about 49 bits each,
 * enough against guessing behind the rate limits; easy to read and type.
 */
export function newRecoveryCode (): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)])
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`
}

/** Case, spaces and hyphens do not matter when typed back. */
export function normalizeRecoveryCode (input: string): string {
  return input.toLowerCase().replace(/[\s-]+/g, '')
}

/** What is stored: the SHA-256 of the normalised code (they are random, so no salt is needed). */
export function hashRecoveryCode (code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code)).digest('hex')
}

/**
 * Replaces every recovery code of a person with ten new ones, in `tx` (the
 * caller's transaction, so the old codes die exactly when the new ones are
 * stored); answers the new codes in clear, for showing once.
 */
export async function replaceRecoveryCodes (tx: EntityManager, owner: { userId: string, tenantId: string }): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  await tx.execute('DELETE FROM two_factor_recovery_codes WHERE user_id = ?', [owner.userId], 'run')
  await tx.execute(
    `INSERT INTO two_factor_recovery_codes (id, tenant_id, user_id, code_hash, used_at, created_at)
     SELECT gen_random_uuid(), ?, ?, hash, NULL, now() FROM unnest(?::text[]) AS hash`,
    [owner.tenantId, owner.userId, `{${codes.map(hashRecoveryCode).join(',')}}`], 'run')
  return codes
}
