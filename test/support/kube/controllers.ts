/**
 * The small controllers a cluster runs besides the deployment one, run lazily on each request:
 * the namespace controller (a deleted namespace stays Terminating for `namespaceDeletionDelayMs`,
 * then its contents and itself go), the PV binder (a claim binds to a volume at once) and the
 * quota controller (ResourceQuota `status.hard`/`status.used`).
 */
import { isObject, type JsonObject } from './merge.ts'
import type { QuotaTracker } from './quota.ts'
import { findByName } from './resources.ts'
import { metadataOf, type StoredEntry } from './store.ts'
import { writeStatus, type WriteContext } from './write-path.ts'

export class ClusterControllers {
  readonly #ctx: WriteContext
  readonly #quota: QuotaTracker
  readonly #namespaceDeletionDelayMs: number
  readonly #terminatingSince = new Map<string, number>()

  constructor (ctx: WriteContext, quota: QuotaTracker, namespaceDeletionDelayMs: number) {
    this.#ctx = ctx
    this.#quota = quota
    this.#namespaceDeletionDelayMs = namespaceDeletionDelayMs
    ctx.store.onChange((type, before, after) => {
      if (type.kind !== 'Namespace') return
      const name = String(metadataOf((after ?? before)?.object ?? {}).name)
      if (after === undefined) this.#terminatingSince.delete(name)
      else if (metadataOf(after.object).deletionTimestamp !== undefined && !this.#terminatingSince.has(name)) this.#terminatingSince.set(name, ctx.now().getTime())
    })
  }

  tick (): void {
    this.#finalizeNamespaces()
    this.#bindClaims()
    this.#updateQuotas()
  }

  #finalizeNamespaces (): void {
    const now = this.#ctx.now().getTime()
    const namespaces = findByName('Namespace')
    for (const [name, since] of this.#terminatingSince) {
      if (now < since + this.#namespaceDeletionDelayMs) continue
      for (const entry of this.#ctx.store.namespaceContents(name)) {
        this.#ctx.store.remove(entry.type, name, String(metadataOf(entry.object).name))
      }
      this.#ctx.store.remove(namespaces, undefined, name)
    }
  }

  #bindClaims (): void {
    const claims = findByName('PersistentVolumeClaim')
    for (const entry of this.#ctx.store.list(claims)) {
      if (!(isObject(entry.object.status) && entry.object.status.phase === 'Bound')) this.#bind(entry)
    }
  }

  #bind (entry: StoredEntry): void {
    const spec = isObject(entry.object.spec) ? entry.object.spec : {}
    const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {}
    const volumeName = `pvc-${String(metadataOf(entry.object).uid)}`
    const object = { ...entry.object, spec: { ...spec, volumeName } }
    const bound = this.#ctx.store.put({ ...entry, object })
    const status: JsonObject = { phase: 'Bound', accessModes: spec.accessModes ?? [], capacity: { storage: requests.storage ?? '0' } }
    writeStatus(this.#ctx, bound, status, 'kube-controller-manager')
  }

  #updateQuotas (): void {
    const quotas = findByName('ResourceQuota')
    for (const entry of this.#ctx.store.list(quotas)) writeStatus(this.#ctx, entry, this.#quota.status(entry.object), 'kube-controller-manager')
  }
}
