/**
 * Persistent volume claims are applied once, when missing, and afterwards only grown.
 * A claim's spec is immutable except its size, and the size cannot shrink: re-applying
 * the full manifest would fail for good after an operator changed the storage class,
 * or a plan lowered its storage. A smaller size is ignored (the data stays).
 */
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node'
import type { KubeApi } from './kube-api.ts'
import { parseQuantity } from './quantities.ts'

export async function ensureClaim (api: KubeApi, manifest: V1PersistentVolumeClaim, fieldManager: string): Promise<void> {
  const namespace = manifest.metadata?.namespace ?? ''
  const name = manifest.metadata?.name ?? ''
  const live = await api.readClaim(namespace, name)
  if (live === undefined) {
    await api.apply(manifest, fieldManager)
    return
  }
  const wanted = manifest.spec?.resources?.requests?.storage
  const current = live.spec?.resources?.requests?.storage
  if (wanted !== undefined && parseQuantity(wanted) > parseQuantity(current)) await api.resizeClaim(namespace, name, wanted, fieldManager)
}
