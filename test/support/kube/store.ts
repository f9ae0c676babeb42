/**
 * The fake's etcd: objects by resource/namespace/name, one global resourceVersion
 * counter bumped on every write (status writes included), and change listeners
 * (the simulated controllers).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { renderManagedFields, type ManagerEntry } from './managed-fields.ts'
import { clone, type JsonObject } from './merge.ts'
import type { ResourceType } from './resources.ts'

export interface StoredEntry {
  type: ResourceType
  /** As stored, metadata.managedFields excluded (rendered from `managers`). */
  object: JsonObject
  managers: ManagerEntry[]
}

export type ChangeListener = (type: ResourceType, before: StoredEntry | undefined, after: StoredEntry | undefined) => void

export function metadataOf (object: JsonObject): JsonObject & { name?: string, namespace?: string, uid?: string, resourceVersion?: string, labels?: Record<string, string> } {
  return (object.metadata ?? {}) as JsonObject
}

function keyOf (type: ResourceType, namespace: string | undefined, name: string): string {
  return `${type.plural}.${type.group}/${type.namespaced ? namespace ?? '' : ''}/${name}`
}

export class ObjectStore {
  #objects = new Map<string, StoredEntry>()
  #revision = 100
  #listeners: ChangeListener[] = []

  onChange (listener: ChangeListener): void {
    this.#listeners.push(listener)
  }

  nextResourceVersion (): string {
    this.#revision++
    return String(this.#revision)
  }

  currentResourceVersion (): string {
    return String(this.#revision)
  }

  newUid (): string {
    return randomUUID()
  }

  get (type: ResourceType, namespace: string | undefined, name: string): StoredEntry | undefined {
    const entry = this.#objects.get(keyOf(type, namespace, name))
    return entry === undefined ? undefined : { ...entry, object: clone(entry.object), managers: entry.managers.map((m) => ({ ...m, fields: new Set(m.fields) })) }
  }

  /** Sorted by namespace, then name (etcd key order). `namespace` undefined: all namespaces. */
  list (type: ResourceType, namespace?: string): StoredEntry[] {
    const prefix = `${type.plural}.${type.group}/${namespace === undefined || !type.namespaced ? '' : `${namespace}/`}`
    return [...this.#objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, entry]) => this.get(entry.type, metadataOf(entry.object).namespace, metadataOf(entry.object).name ?? '') as StoredEntry)
  }

  /** Writes the entry with a new resourceVersion; returns what was stored. */
  put (entry: StoredEntry): StoredEntry {
    const meta = metadataOf(entry.object)
    const key = keyOf(entry.type, meta.namespace, meta.name ?? '')
    const before = this.#objects.get(key)
    const stored: StoredEntry = { type: entry.type, object: clone(entry.object), managers: entry.managers }
    metadataOf(stored.object).resourceVersion = this.nextResourceVersion()
    this.#objects.set(key, stored)
    for (const listener of this.#listeners) listener(entry.type, before, stored)
    return this.get(entry.type, meta.namespace, meta.name ?? '') as StoredEntry
  }

  remove (type: ResourceType, namespace: string | undefined, name: string): StoredEntry | undefined {
    const key = keyOf(type, namespace, name)
    const before = this.#objects.get(key)
    if (before === undefined) return undefined
    this.#objects.delete(key)
    this.nextResourceVersion()
    for (const listener of this.#listeners) listener(type, before, undefined)
    return before
  }

  /** Every namespaced object in a namespace (for namespace deletion). */
  namespaceContents (namespace: string): StoredEntry[] {
    return [...this.#objects.values()].filter((e) => e.type.namespaced && metadataOf(e.object).namespace === namespace)
  }
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'

/** The random suffix of generateName and of pod names (`web-7d4b9c8f5d-x2k9p`). */
export function randomSuffix (length = 5): string {
  return [...randomBytes(length)].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('')
}

/** The object as the API returns it: managedFields rendered into metadata. */
export function toWire (entry: StoredEntry): JsonObject {
  const object = clone(entry.object)
  const managedFields = renderManagedFields(entry.managers)
  if (managedFields.length > 0) metadataOf(object).managedFields = managedFields
  return object
}
