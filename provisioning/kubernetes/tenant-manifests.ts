/** The tenant-wide objects: its namespace, its ResourceQuota and the addons claim its instances share. */
import type { V1Namespace, V1PersistentVolumeClaim, V1ResourceQuota } from '@kubernetes/client-node'
import type { TenantQuota } from '../backend.ts'
import { addonsClaimOf, MANAGED_BY, LABEL, namespaceOf, QUOTA_NAME, tenantLabels } from './names.ts'
import { gibibytes, mebibytes, millicores } from './quantities.ts'

export function namespaceManifest (tenantSubdomain: string, tenantId: string): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespaceOf(tenantSubdomain), labels: tenantLabels(tenantSubdomain, tenantId) } }
}

/**
 * The subscription's limits. `requests.storage` also covers the addons claim, so the
 * tenant's `storageGb` is left whole for the instances' filestores. Only limits are
 * listed: every ERP pod sets them, and a quota on requests would refuse pods without.
 */
export function quotaManifest (tenantSubdomain: string, quota: TenantQuota, addonsStorageGb: number): V1ResourceQuota {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: QUOTA_NAME, namespace: namespaceOf(tenantSubdomain), labels: { [LABEL.managedBy]: MANAGED_BY } },
    spec: {
      hard: {
        'limits.memory': mebibytes(quota.memoryMb),
        'limits.cpu': millicores(quota.cpuMillicores),
        'requests.storage': gibibytes(quota.storageGb + addonsStorageGb),
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
