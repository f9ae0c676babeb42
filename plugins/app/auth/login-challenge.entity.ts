import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

export const CHALLENGE_PURPOSES = ['code', 'enrol'] as const

/**
 * The second half of a login that needs a second factor: after the right
 * password, `code` waits for a TOTP or recovery code, `enrol` for the person to
 * set the factor up (their company requires it). Short-lived, single use, only
 * the SHA-256 of its token is stored; wrong codes count against it.
 */
const LoginChallengeSchema = defineEntity({
  name: 'LoginChallenge',
  tableName: 'login_challenges',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    user: () => p.manyToOne(User).index(),
    tokenHash: p.string().length(64).unique(),
    purpose: p.enum(CHALLENGE_PURPOSES),
    failedAttempts: p.integer().default(0),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(512).nullable(),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable(),
    createdAt: createdAt()
  }
})

export class LoginChallenge extends LoginChallengeSchema.class {}
LoginChallengeSchema.setClass(LoginChallenge)
