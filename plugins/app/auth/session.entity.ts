import { defineEntity, p } from '@mikro-orm/core'
import { uuidPrimaryKey, timestamp, createdAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * One row per issued portal token. The token's `sid` claim points here, so a
 * logout (revoked_at) or a deactivated user stops the token at once.
 */
const PortalSessionSchema = defineEntity({
  name: 'PortalSession',
  tableName: 'portal_sessions',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    user: () => p.manyToOne(User).index(),
    createdAt: createdAt(),
    expiresAt: timestamp(),
    revokedAt: timestamp().nullable(),
    /** When a request last used the session, to the minute: refreshed at most once a minute. */
    lastUsedAt: timestamp().nullable(),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(512).nullable()
  }
})

export class PortalSession extends PortalSessionSchema.class {}
PortalSessionSchema.setClass(PortalSession)
