/**
 * What every write goes through (the registry "strategy" of the real server):
 * server-managed metadata, preserved status, defaults, generation, validation,
 * the namespace's existence, field ownership, and no-op detection (an unchanged
 * object keeps its resourceVersion).
 */
import { applyDefaults, type DefaultsContext } from './defaults.ts'
import { changedPaths, ownable, type FieldSet, type ManagerEntry } from './managed-fields.ts'
import { clone, deepEqual, isObject, type JsonObject } from './merge.ts'
import { findByName, groupVersion, type ResourceType } from './resources.ts'
import { failure, forbidden } from './status.ts'
import { metadataOf, type ObjectStore, type StoredEntry } from './store.ts'
import { validate } from './validation.ts'

export interface WriteContext {
  store: ObjectStore
  defaults: DefaultsContext
  now: () => Date
  /** Validating admission after validation (the ResourceQuota check); throws a Status error. */
  admit?: (type: ResourceType, namespace: string, object: JsonObject, before: JsonObject | undefined) => void
}

const SERVER_METADATA = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']

const INITIAL_STATUS: Record<string, JsonObject> = {
  Namespace: { phase: 'Active' },
  PersistentVolumeClaim: { phase: 'Pending' },
  Service: { loadBalancer: {} },
  Ingress: { loadBalancer: {} }
}

/** The object to store for `incoming` (a create when `before` is undefined); validated; throws Status errors. */
export function prepare (ctx: WriteContext, type: ResourceType, incoming: JsonObject, before: JsonObject | undefined, namespace: string | undefined): JsonObject {
  const object = clone(incoming)
  object.apiVersion ??= groupVersion(type) // the endpoint's version and kind, when the body leaves them out
  object.kind ??= type.kind
  const meta = isObject(object.metadata) ? object.metadata : {}
  object.metadata = meta
  for (const key of SERVER_METADATA) delete meta[key]
  if (type.namespaced && namespace !== undefined) meta.namespace = namespace
  if (!type.namespaced) delete meta.namespace
  const was = before === undefined ? undefined : metadataOf(before)
  meta.uid = was?.uid ?? ctx.store.newUid()
  meta.creationTimestamp = (was?.creationTimestamp as string | undefined) ?? ctx.now().toISOString().replace(/\.\d+Z$/, 'Z')
  if (was?.deletionTimestamp !== undefined) meta.deletionTimestamp = was.deletionTimestamp
  if (type.hasStatus) object.status = clone(before?.status ?? INITIAL_STATUS[type.kind] ?? {})
  applyDefaults(type, object, before, ctx.defaults)
  if (type.hasGeneration) {
    const previous = typeof was?.generation === 'number' ? was.generation : 0
    meta.generation = before === undefined ? 1 : deepEqual(object.spec, before.spec) ? previous : previous + 1
  }
  validate(type, object, before)
  if (type.namespaced) ctx.admit?.(type, String(meta.namespace), object, before)
  return object
}

/** Creating in a missing namespace is a 404, in a terminating one a 403, as on a real cluster. */
export function checkNamespaceAcceptsCreate (ctx: WriteContext, type: ResourceType, namespace: string | undefined, name: string): void {
  if (!type.namespaced) return
  const nsType = findByName('Namespace')
  const ns = ctx.store.get(nsType, undefined, namespace ?? '')
  if (ns === undefined) throw failure(404, `namespaces "${namespace ?? ''}" not found`, { name: namespace ?? '', kind: 'namespaces' })
  if (metadataOf(ns.object).deletionTimestamp !== undefined) {
    throw forbidden(type, name, `unable to create new content in namespace ${namespace ?? ''} because it is being terminated`)
  }
}

function sameManagers (a: ManagerEntry[], b: ManagerEntry[]): boolean {
  return a.length === b.length && a.every((m, i) => {
    const o = b[i] as ManagerEntry
    return m.manager === o.manager && m.operation === o.operation && m.subresource === o.subresource && m.fields.size === o.fields.size && [...m.fields].every((f) => o.fields.has(f))
  })
}

function cloneManagers (managers: ManagerEntry[]): ManagerEntry[] {
  return managers.map((m) => ({ ...m, fields: new Set(m.fields) }))
}

/** An Update (create, PUT, non-apply PATCH): the manager takes the fields it changed, others lose them. */
export function recordUpdate (ctx: WriteContext, type: ResourceType, managers: ManagerEntry[], manager: string, changed: FieldSet, subresource?: string): ManagerEntry[] {
  if (changed.size === 0) return managers
  const next = cloneManagers(managers)
  for (const m of next) if (!(m.manager === manager && m.operation === 'Update' && m.subresource === subresource)) for (const f of changed) m.fields.delete(f)
  let own = next.find((m) => m.manager === manager && m.operation === 'Update' && m.subresource === subresource)
  if (own === undefined) {
    own = { manager, operation: 'Update', apiVersion: groupVersion(type), time: '', fields: new Set(), ...(subresource === undefined ? {} : { subresource }) }
    next.push(own)
  }
  for (const f of changed) own.fields.add(f)
  own.time = ctx.now().toISOString().replace(/\.\d+Z$/, 'Z')
  return next.filter((m) => m.fields.size > 0)
}

export function updateManagers (ctx: WriteContext, type: ResourceType, before: StoredEntry | undefined, object: JsonObject, manager: string): ManagerEntry[] {
  const changed = changedPaths(before === undefined ? {} : ownable(before.object), ownable(object))
  return recordUpdate(ctx, type, before?.managers ?? [], manager, changed)
}

/**
 * Stores the object unless nothing changed (then the stored entry comes back with its
 * resourceVersion untouched) or it is a dry run. Returns [entry, changed].
 */
export function commit (ctx: WriteContext, type: ResourceType, before: StoredEntry | undefined, object: JsonObject, managers: ManagerEntry[], dryRun: boolean): [StoredEntry, boolean] {
  if (before !== undefined) {
    const candidate = clone(object)
    metadataOf(candidate).resourceVersion = metadataOf(before.object).resourceVersion
    if (deepEqual(candidate, before.object) && sameManagers(managers, before.managers)) return [before, false]
  }
  const entry: StoredEntry = { type, object, managers: cloneManagers(managers) }
  if (dryRun) {
    metadataOf(entry.object).resourceVersion = before === undefined ? '' : metadataOf(before.object).resourceVersion
    return [entry, true]
  }
  return [ctx.store.put(entry), true]
}

/** A controller's write to the status sub-resource (the object's spec and labels untouched). */
export function writeStatus (ctx: WriteContext, entry: StoredEntry, status: JsonObject, manager: string): StoredEntry {
  if (deepEqual(entry.object.status, status)) return entry
  const object = clone(entry.object)
  object.status = clone(status)
  const changed = changedPaths({ status: entry.object.status ?? {} }, { status })
  const managers = recordUpdate(ctx, entry.type, entry.managers, manager, changed, 'status')
  return ctx.store.put({ type: entry.type, object, managers })
}

/** The manager of a non-apply write: `?fieldManager=`, else the user agent's first word, as the real server does. */
export function updateManagerName (query: URLSearchParams, userAgent: string | undefined): string {
  const given = query.get('fieldManager')
  if (given !== null && given !== '') return given
  return (userAgent ?? '').split('/')[0]?.trim() || 'unknown'
}
