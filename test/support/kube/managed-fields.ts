/**
 * Field ownership for server-side apply, in the spirit of structured-merge-diff:
 * an object's leaf fields (associative list items addressed by key), who owns
 * which, and `metadata.managedFields` rendered as FieldsV1.
 */
import { deepEqual, isObject, listKey, type Json, type JsonObject } from './merge.ts'

/** `["f:spec","f:template","f:spec","f:containers","k:{\"name\":\"app\"}","f:image"]` */
export type FieldPath = string[]
export type FieldSet = Set<string>

export interface ManagerEntry {
  manager: string
  operation: 'Apply' | 'Update'
  apiVersion: string
  time: string
  subresource?: string
  fields: FieldSet
}

export const pathKey = (path: FieldPath): string => JSON.stringify(path)
export const keyPath = (key: string): FieldPath => JSON.parse(key) as FieldPath

/** Fields a user never owns: identity, server-managed metadata. */
const UNOWNED_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']

/** The part of an object a writer of the main resource owns: no apiVersion/kind, server metadata or status. */
export function ownable (object: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, status: _s, metadata, ...rest } = object
  const result: JsonObject = { ...rest }
  if (isObject(metadata)) {
    const meta = Object.fromEntries(Object.entries(metadata).filter(([k]) => !UNOWNED_METADATA.includes(k)))
    if (Object.keys(meta).length > 0) result.metadata = meta
  }
  return result
}

export function leafPaths (value: Json, prefix: FieldPath = [], field = ''): FieldPath[] {
  if (Array.isArray(value)) {
    const key = listKey(field, value)
    if (key === undefined || value.length === 0) return [prefix]
    return value.flatMap((item) => leafPaths(item, [...prefix, `k:${JSON.stringify({ [key]: (item as JsonObject)[key] })}`]))
  }
  if (isObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== null)
    if (entries.length === 0) return prefix.length === 0 ? [] : [prefix]
    return entries.flatMap(([k, v]) => leafPaths(v, [...prefix, `f:${k}`], k))
  }
  return [prefix]
}

export function fieldSet (object: JsonObject): FieldSet {
  return new Set(leafPaths(object).map(pathKey))
}

function step (current: Json | undefined, segment: string): { container: JsonObject | Json[], key: string | number } | undefined {
  if (segment.startsWith('f:') && isObject(current)) return { container: current, key: segment.slice(2) }
  if (segment.startsWith('k:') && Array.isArray(current)) {
    const wanted = JSON.parse(segment.slice(2)) as JsonObject
    const index = current.findIndex((item) => isObject(item) && Object.entries(wanted).every(([k, v]) => deepEqual(item[k], v)))
    return index === -1 ? undefined : { container: current, key: index }
  }
  return undefined
}

export function valueAt (object: Json, path: FieldPath): Json | undefined {
  let current: Json | undefined = object
  for (const segment of path) {
    const at = step(current, segment)
    if (at === undefined) return undefined
    current = (at.container as Record<string | number, Json>)[at.key]
  }
  return current
}

/** Removes a field; then drops maps and lists left empty and list items that lost their key, up the path. */
export function removeAt (object: JsonObject, path: FieldPath): void {
  const trail: Array<{ container: JsonObject | Json[], key: string | number }> = []
  let current: Json | undefined = object
  for (const segment of path) {
    const at = step(current, segment)
    if (at === undefined) return
    trail.push(at)
    current = (at.container as Record<string | number, Json>)[at.key]
  }
  for (let i = trail.length - 1; i >= 0; i--) {
    const { container, key } = trail[i] as { container: JsonObject | Json[], key: string | number }
    const value = (container as Record<string | number, Json>)[key]
    const segment = path[i] ?? ''
    const keyless = segment.startsWith('k:') && isObject(value) && !Object.keys(JSON.parse(segment.slice(2)) as JsonObject).every((k) => k in value)
    const empty = (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0)
    if (i < trail.length - 1 && !keyless && !empty) return
    if (Array.isArray(container)) container.splice(key as number, 1)
    else delete container[key as string]
  }
}

/** `.spec.template.spec.containers[name="app"].image`, as conflict messages print a path. */
export function formatPath (path: FieldPath): string {
  return path.map((segment) => {
    if (segment.startsWith('f:')) return `.${segment.slice(2)}`
    const key = JSON.parse(segment.slice(2)) as JsonObject
    return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`
  }).join('')
}

export function toFieldsV1 (fields: FieldSet): JsonObject {
  const root: JsonObject = {}
  for (const key of [...fields].sort()) {
    let node = root
    for (const segment of keyPath(key)) {
      node[segment] ??= segment.startsWith('k:') ? { '.': {} } : {}
      node = node[segment] as JsonObject
    }
  }
  return root
}

export function renderManagedFields (managers: ManagerEntry[]): JsonObject[] {
  return managers.filter((m) => m.fields.size > 0).map((m) => ({
    manager: m.manager,
    operation: m.operation,
    apiVersion: m.apiVersion,
    time: m.time,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(m.fields),
    ...(m.subresource === undefined ? {} : { subresource: m.subresource })
  }))
}

/** Paths whose values differ between two objects (added, changed or removed leaves). */
export function changedPaths (before: JsonObject, after: JsonObject): FieldSet {
  const changed: FieldSet = new Set()
  for (const key of fieldSet(after)) if (!deepEqual(valueAt(before, keyPath(key)), valueAt(after, keyPath(key)))) changed.add(key)
  for (const key of fieldSet(before)) if (valueAt(after, keyPath(key)) === undefined) changed.add(key)
  return changed
}
