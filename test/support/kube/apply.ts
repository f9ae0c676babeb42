/**
 * Server-side apply (PATCH with application/apply-patch+yaml): creates a missing object,
 * merges the applied fields, removes fields this manager applied before and no longer
 * does (unless someone else owns them), and refuses to change a field another manager
 * owns (409 Conflict listing the fields) unless `force=true`, which takes it over.
 */
import { isDryRun, type ApiRequest, type ApiResponse } from './api-request.ts'
import { fieldSet, formatPath, keyPath, ownable, removeAt, valueAt, type ManagerEntry } from './managed-fields.ts'
import { clone, deepEqual, isObject, keyedMerge, type Json, type JsonObject } from './merge.ts'
import { groupVersion } from './resources.ts'
import { applyConflicts, badRequest, conflict, failure } from './status.ts'
import { metadataOf, toWire } from './store.ts'
import { checkIdentity, requireObjectBody } from './write-handlers.ts'
import { checkNamespaceAcceptsCreate, commit, prepare, type WriteContext } from './write-path.ts'

function dropNulls (value: Json): Json {
  if (Array.isArray(value)) return value.map(dropNulls)
  if (!isObject(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]))
}

function appliedConfiguration (req: ApiRequest): JsonObject {
  const body = dropNulls(requireObjectBody(req.body)) as JsonObject
  if (typeof body.apiVersion !== 'string' || body.apiVersion === '') throw badRequest('error decoding patch: apiVersion must be set in an applied configuration')
  if (typeof body.kind !== 'string' || body.kind === '') throw badRequest('error decoding patch: kind must be set in an applied configuration')
  if (body.apiVersion !== groupVersion(req.type) || body.kind !== req.type.kind) {
    throw badRequest(`the API version in the data (${body.apiVersion}) and kind (${body.kind}) do not match the requested resource (${groupVersion(req.type)} ${req.type.kind})`)
  }
  checkIdentity(req, body)
  body.metadata = { ...(isObject(body.metadata) ? body.metadata : {}), name: req.name ?? '' }
  if (req.type.hasStatus) delete body.status
  return body
}

export function apply (ctx: WriteContext, req: ApiRequest): ApiResponse {
  const manager = req.query.get('fieldManager') ?? ''
  if (manager === '') throw failure(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
  const force = req.query.get('force') === 'true'
  const applied = appliedConfiguration(req)
  const appliedFields = fieldSet(ownable(applied))
  const now = ctx.now().toISOString().replace(/\.\d+Z$/, 'Z')
  const own = (m: ManagerEntry): boolean => m.manager === manager && m.operation === 'Apply' && m.subresource === undefined
  const before = ctx.store.get(req.type, req.namespace, req.name ?? '')

  if (before === undefined) {
    checkNamespaceAcceptsCreate(ctx, req.type, req.namespace, req.name ?? '')
    const object = prepare(ctx, req.type, applied, undefined, req.namespace)
    const managers: ManagerEntry[] = [{ manager, operation: 'Apply', apiVersion: groupVersion(req.type), time: now, fields: appliedFields }]
    const [entry] = commit(ctx, req.type, undefined, object, managers, isDryRun(req.query))
    return { code: 201, body: toWire(entry) }
  }

  const version = metadataOf(applied).resourceVersion
  if (version !== undefined && version !== metadataOf(before.object).resourceVersion) throw conflict(req.type, req.name ?? '')
  const working = clone(before.object)
  const others = before.managers.filter((m) => !own(m)).map((m) => ({ ...m, fields: new Set(m.fields) }))
  const conflicts: Array<{ manager: string, field: string, key: string, entry: ManagerEntry }> = []
  for (const key of appliedFields) {
    const path = keyPath(key)
    if (deepEqual(valueAt(working, path), valueAt(applied, path))) continue
    for (const other of others) if (other.fields.has(key)) conflicts.push({ manager: other.manager, field: formatPath(path), key, entry: other })
  }
  if (conflicts.length > 0 && !force) throw applyConflicts(req.type, req.name ?? '', conflicts)
  for (const c of conflicts) c.entry.fields.delete(c.key)

  const previous = before.managers.find(own)
  for (const key of previous?.fields ?? []) {
    if (!appliedFields.has(key) && !others.some((m) => m.fields.has(key))) removeAt(working, keyPath(key))
  }
  const merged = keyedMerge(working, applied, false) as JsonObject
  const object = prepare(ctx, req.type, merged, before.object, req.namespace)
  const sameFields = previous !== undefined && previous.fields.size === appliedFields.size && [...appliedFields].every((f) => previous.fields.has(f))
  const mine: ManagerEntry = { manager, operation: 'Apply', apiVersion: groupVersion(req.type), time: sameFields ? previous.time : now, fields: appliedFields }
  let other = 0 // keep the stored order, so that an identical apply compares equal
  const managers = before.managers.map((m) => (own(m) ? mine : others[other++] as ManagerEntry))
  if (previous === undefined) managers.push(mine)
  const [entry] = commit(ctx, req.type, before, object, managers.filter((m) => m.fields.size > 0), isDryRun(req.query))
  return { code: 200, body: toWire(entry) }
}
