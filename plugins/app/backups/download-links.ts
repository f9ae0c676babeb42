/**
 * Download links for browsers: `POST …/download-token` mints a random token (`bdl1_…`) good for
 * one backup's `download-by-token` route until it expires, as often as a resumed download needs,
 * so the bearer token never goes into a URL, a history or a server log. Only its SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { UserActor } from '../../../lib/actor.ts'
import { ACROSS_TENANTS, scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'
import { Backup } from './backup.entity.ts'
import type { BackupsService } from './backups.service.ts'
import { BackupDownloadTokenInvalid } from './backups.errors.ts'
import { BackupDownloadToken } from './download-token.entity.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export const DOWNLOAD_TOKEN_SECONDS = 300
const PREFIX = 'bdl1_'

export const hashDownloadToken = (token: string): string => createHash('sha256').update(token).digest('hex')

export function createDownloadLinks (deps: { activity: ActivityService, backups: Pick<BackupsService, 'archive'>, baseUrl: string, now?: () => number }) {
  const now = deps.now ?? Date.now

  return {
    /** A token for this backup's download, after the same checks as the download itself (completed, archive present). */
    async issue ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, instanceId: number, backupId: number): Promise<{ token: string, expires_in: number, download_url: string }> {
      await deps.backups.archive({ em }, instanceId, backupId)
      const token = `${PREFIX}${randomBytes(32).toString('base64url')}`
      await em.transactional(async (tx) => {
        tx.create(BackupDownloadToken, {
          tenant: tx.getReference(Tenant, actor.tenantId),
          backup: tx.getReference(Backup, backupId),
          user: tx.getReference(User, actor.userId),
          tokenHash: hashDownloadToken(token),
          expiresAt: new Date(now() + DOWNLOAD_TOKEN_SECONDS * 1000)
        })
        deps.activity.record(tx, actor, { type: 'backup.download_link_created', title: `Download link for backup #${backupId} created`, targetType: 'backup', targetId: String(backupId), instanceId })
        await tx.flush()
      })
      return {
        token,
        expires_in: DOWNLOAD_TOKEN_SECONDS,
        download_url: `${deps.baseUrl.replace(/\/$/, '')}/api/instances/${instanceId}/backups/${backupId}/download-by-token?token=${encodeURIComponent(token)}`
      }
    },

    /** The tenant-scoped manager and user a valid token for this instance's backup speaks for; 401 for anything else. */
    async redeem (root: EntityManager, token: string | undefined, instanceId: number, backupId: number): Promise<{ em: EntityManager, actor: UserActor }> {
      if (token === undefined || !token.startsWith(PREFIX)) throw BackupDownloadTokenInvalid()
      const found = await root.fork().findOne(BackupDownloadToken, { tokenHash: hashDownloadToken(token) }, { ...ACROSS_TENANTS, populate: ['backup', 'user'] })
      if (found === null || found.expiresAt.getTime() <= now() || found.backup.id !== backupId || found.backup.instance.id !== instanceId || !found.user.active) throw BackupDownloadTokenInvalid()
      const user = found.user
      const actor: UserActor = { kind: 'user', userId: user.id, tenantId: found.tenant.id, role: user.role, email: user.email, name: user.name, sessionId: found.id }
      return { em: scopedEntityManager(root, found.tenant.id), actor }
    }
  }
}

export type DownloadLinks = ReturnType<typeof createDownloadLinks>
