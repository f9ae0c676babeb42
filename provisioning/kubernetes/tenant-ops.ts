/** A tenant's shared objects: namespace, quota, addons claim. */
import type { TenantQuota } from '../backend.ts'
import { CONCURRENT_READERS, READER_LIMITS } from './archive-reader.ts'
import { BACKUP_JOB_LIMITS } from './backup-job.ts'
import { ensureClaim } from './claims.ts'
import type { KubeApi } from './kube-api.ts'
import { namespaceOf } from './names.ts'
import type { ResolvedOptions } from './options.ts'
import { addonsClaimManifest, namespaceManifest, quotaManifest } from './tenant-manifests.ts'

export interface TenantOps {
  ensureTenant: (tenantSubdomain: string, tenantId: string, quota: TenantQuota) => Promise<void>
  /** Namespace and addons claim, without the quota (which needs the subscription): what an instance cannot run without. */
  ensureTenantBasics: (tenantSubdomain: string, tenantId: string) => Promise<void>
  /** Deletes the namespace and with it everything in it; a missing one is a success. */
  removeTenant: (tenantSubdomain: string) => Promise<void>
}

export function createTenantOps (api: KubeApi, options: ResolvedOptions): TenantOps {
  const manager = options.fieldManager
  const addonsClaim = (tenantSubdomain: string) => addonsClaimManifest(tenantSubdomain, options.addonsStorageGb, options.addonsStorageClass)

  return {
    async ensureTenant (tenantSubdomain, tenantId, quota) {
      await api.apply(namespaceManifest(tenantSubdomain, tenantId), manager)
      // The quota first: the claim counts against it.
      const extras = {
        storageGb: options.addonsStorageGb + options.backupStorageGb,
        memoryMb: BACKUP_JOB_LIMITS.memoryMb + CONCURRENT_READERS * READER_LIMITS.memoryMb,
        cpuMillicores: BACKUP_JOB_LIMITS.cpuMillicores + CONCURRENT_READERS * READER_LIMITS.cpuMillicores
      }
      await api.apply(quotaManifest(tenantSubdomain, quota, extras), manager)
      await ensureClaim(api, addonsClaim(tenantSubdomain), manager)
    },
    async ensureTenantBasics (tenantSubdomain, tenantId) {
      await api.apply(namespaceManifest(tenantSubdomain, tenantId), manager)
      await ensureClaim(api, addonsClaim(tenantSubdomain), manager)
    },
    async removeTenant (tenantSubdomain) {
      await api.remove('Namespace', '', namespaceOf(tenantSubdomain))
    }
  }
}
