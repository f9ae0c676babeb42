/**
 * Merging objects as the API server does for the three patch types and for apply.
 * Lists known to be associative in the Kubernetes schema (containers by name,
 * env by name, ports by port number, …) merge item by item; every other list is atomic.
 */
import { badRequest, failure } from './status.ts'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export function isObject (value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function clone<T> (value: T): T {
  return structuredClone(value)
}

export function deepEqual (a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

const KEYED_LISTS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid'
}

/** The merge key of the list at `field`, or undefined for an atomic list. */
export function listKey (field: string, items: Json[]): string | undefined {
  const key = field === 'ports'
    ? (items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port')
    : KEYED_LISTS[field]
  if (key === undefined) return undefined
  return items.every((i) => isObject(i) && i[key] !== undefined && i[key] !== null) ? key : undefined
}

/** RFC 7386 JSON merge patch: objects merge, `null` deletes, arrays replace. */
export function mergePatch (target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch)
  const result: JsonObject = isObject(target) ? clone(target) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key] ?? null, value)
  }
  return result
}

/**
 * Strategic merge (and the merge step of apply): like a merge patch, but associative
 * lists merge by key, in the patch's order, then the items it did not mention.
 * `deleteOnNull` is the patch behaviour; apply drops nulls before merging.
 */
export function keyedMerge (target: Json | undefined, patch: Json, deleteOnNull = true, field = ''): Json {
  if (Array.isArray(patch)) {
    const key = listKey(field, patch)
    if (key === undefined || !Array.isArray(target) || listKey(field, target) !== key) return clone(patch)
    const merged = patch.map((item) => {
      const existing = target.find((t) => isObject(t) && isObject(item) && deepEqual(t[key], item[key]))
      return keyedMerge(existing, item, deleteOnNull)
    })
    const untouched = target.filter((t) => isObject(t) && !patch.some((p) => isObject(p) && deepEqual(p[key], t[key])))
    return [...merged, ...clone(untouched)]
  }
  if (!isObject(patch)) return clone(patch)
  const result: JsonObject = isObject(target) ? clone(target) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null && deleteOnNull) delete result[key]
    else if (value !== null) result[key] = keyedMerge(result[key], value, deleteOnNull, key)
  }
  return result
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch (target: JsonObject, operations: unknown): JsonObject {
  if (!Array.isArray(operations)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch (a JSON patch is an array of operations)')
  let doc: Json = clone(target)
  for (const op of operations) {
    if (!isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string') throw badRequest(`invalid JSON patch operation: ${JSON.stringify(op)}`)
    const path = parsePointer(op.path)
    switch (op.op) {
      case 'add': doc = setAt(doc, path, clone(op.value ?? null), true); break
      case 'replace': getAt(doc, path); doc = setAt(doc, path, clone(op.value ?? null), false); break
      case 'remove': doc = removeAt(doc, path); break
      case 'move': { const from = parsePointer(String(op.from)); const value = getAt(doc, from); doc = setAt(removeAt(doc, from), path, value, true); break }
      case 'copy': doc = setAt(doc, path, clone(getAt(doc, parsePointer(String(op.from)))), true); break
      case 'test': if (!deepEqual(getAt(doc, path), op.value)) throw failure(422, `the server rejected our request due to an error in our request: testing value ${op.path} failed`); break
      default: throw badRequest(`Unexpected kind: ${op.op}`)
    }
  }
  if (!isObject(doc)) throw badRequest('the patch replaced the whole object with a non-object')
  return doc
}

function parsePointer (pointer: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw badRequest(`JSON pointer must start with "/": ${pointer}`)
  return pointer.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}

function missing (path: string[]): never {
  throw failure(422, `the server rejected our request due to an error in our request: doc is missing path: /${path.join('/')}`)
}

function getAt (doc: Json, path: string[]): Json {
  let current: Json = doc
  for (const segment of path) {
    if (Array.isArray(current)) current = current[Number(segment)] ?? missing(path)
    else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment] ?? null
    else missing(path)
  }
  return current
}

function setAt (doc: Json, path: string[], value: Json, insert: boolean): Json {
  if (path.length === 0) return value
  const parent = getAt(doc, path.slice(0, -1))
  const last = path.at(-1) ?? ''
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last)
    if (!Number.isInteger(index) || index < 0 || index > parent.length) missing(path)
    parent.splice(index, insert ? 0 : 1, value)
  } else if (isObject(parent)) parent[last] = value
  else missing(path)
  return doc
}

function removeAt (doc: Json, path: string[]): Json {
  const parent = getAt(doc, path.slice(0, -1))
  const last = path.at(-1) ?? ''
  getAt(doc, path)
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else if (isObject(parent)) delete parent[last]
  return doc
}
