/** The tenant-wide objects: its namespace, its ResourceQuota and the addons claim its instances share. */
import type { V1Namespace, V1PersistentVolumeClaim, V1ResourceQuota } from '@kubernetes/client-node'
import type { TenantQuota } from '../backend.ts'
import { addonsClaimOf, MANAGED_BY, LABEL, namespaceOf, QUOTA_NAME, tenantLabels } from './names.ts'
import { gibibytes, mebibytes, millicores } from './quantities.ts'

export function namespaceManifest (tenantSubdomain: string, tenantId: string): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespaceOf(tenantSubdomain), labels: tenantLabels(tenantSubdomain, tenantId) } }
}

/** Room in the quota for one backup Job and a few download reader pods at a time, so a tenant using its whole plan can still be backed up and download its backups. */
export interface QuotaExtras {
  /** The addons and backup claims. */
  storageGb: number
  memoryMb: number
  cpuMillicores: number
}

/**
 * The subscription's limits. `requests.storage` also covers the addons and backup claims, and
 * the compute limits a backup Job's pod and the download readers, so the tenant's plan is left whole for its instances.
 * Only limits are listed: every ERP pod sets them, and a quota on requests would refuse pods without.
 */
export function quotaManifest (tenantSubdomain: string, quota: TenantQuota, extras: QuotaExtras): V1ResourceQuota {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: QUOTA_NAME, namespace: namespaceOf(tenantSubdomain), labels: { [LABEL.managedBy]: MANAGED_BY } },
    spec: {
      hard: {
        'limits.memory': mebibytes(quota.memoryMb + extras.memoryMb),
        'limits.cpu': millicores(quota.cpuMillicores + extras.cpuMillicores),
        'requests.storage': gibibytes(quota.storageGb + extras.storageGb),
        'count/deployments.apps': String(quota.instances)
      }
    }
  }
}

export function addonsClaimManifest (tenantSubdomain: string, sizeGb: number, storageClass: string | undefined): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: addonsClaimOf(tenantSubdomain), namespace: namespaceOf(tenantSubdomain), labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.tenant]: tenantSubdomain } },
    spec: {
      accessModes: ['ReadWriteMany'],
      ...(storageClass === undefined ? {} : { storageClassName: storageClass }),
      resources: { requests: { storage: gibibytes(sizeGb) } }
    }
  }
}
