import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/**
 * A one-time code the portal mints for a signed-in person, which the auth
 * server exchanges (once, within a minute) for that person's identity to finish
 * an OAuth authorization. Only the SHA-256 of the code is stored.
 */
const HandoffCodeSchema = defineEntity({
  name: 'HandoffCode',
  tableName: 'oauth_handoff_codes',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    user: () => p.manyToOne(User),
    codeHash: p.string().length(64).unique(),
    /** The authorization transaction (interaction uid) the code was minted for */
    transaction: p.string().length(255),
    expiresAt: timestamp(),
    consumedAt: timestamp().nullable(),
    createdAt: createdAt()
  }
})

export class HandoffCode extends HandoffCodeSchema.class {}
HandoffCodeSchema.setClass(HandoffCode)
