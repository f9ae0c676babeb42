import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'
import { Backup } from './backup.entity.ts'

/**
 * A short-lived link to download one backup's archive from a browser, so the bearer token
 * never goes into a URL. Good for that backup's download route only, as often as a resumed
 * download needs, until it expires. Only the SHA-256 of the token is stored.
 */
const BackupDownloadTokenSchema = defineEntity({
  name: 'BackupDownloadToken',
  tableName: 'backup_download_tokens',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    backup: () => p.manyToOne(Backup).deleteRule('cascade').index(),
    user: () => p.manyToOne(User),
    tokenHash: p.string().length(64).unique(),
    expiresAt: timestamp(),
    createdAt: createdAt()
  }
})

export class BackupDownloadToken extends BackupDownloadTokenSchema.class {}
BackupDownloadTokenSchema.setClass(BackupDownloadToken)
