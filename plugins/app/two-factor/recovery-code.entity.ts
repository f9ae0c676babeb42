import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/** A single-use recovery code of a person's second factor; only its SHA-256 is kept. */
const RecoveryCodeSchema = defineEntity({
  name: 'RecoveryCode',
  tableName: 'two_factor_recovery_codes',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    user: () => p.manyToOne(User).index(),
    codeHash: p.string().length(64),
    usedAt: timestamp().nullable(),
    createdAt: createdAt()
  }
})

export class RecoveryCode extends RecoveryCodeSchema.class {}
RecoveryCodeSchema.setClass(RecoveryCode)
