/** POST (create), PUT (replace), non-apply PATCH, DELETE and DELETE on a collection. */
import { isDryRun, type ApiRequest, type ApiResponse } from './api-request.ts'
import { isObject, jsonPatch, keyedMerge, mergePatch, type JsonObject } from './merge.ts'
import { groupVersion } from './resources.ts'
import { parseFieldSelector, parseLabelSelector } from './selectors.ts'
import { alreadyExists, badRequest, conflict, failure, methodNotAllowed, notFound, success } from './status.ts'
import { metadataOf, randomSuffix, toWire, type StoredEntry } from './store.ts'
import { checkNamespaceAcceptsCreate, commit, prepare, updateManagerName, updateManagers, type WriteContext } from './write-path.ts'

export function requireObjectBody (body: unknown): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf')
  return body
}

/** The body's name and namespace must agree with the URL, as the real server insists. */
export function checkIdentity (req: ApiRequest, body: JsonObject): void {
  const meta = isObject(body.metadata) ? body.metadata : {}
  if (req.name !== undefined && meta.name !== undefined && meta.name !== req.name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${req.name})`)
  }
  if (req.type.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== req.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
  }
}

function existing (ctx: WriteContext, req: ApiRequest): StoredEntry {
  const entry = ctx.store.get(req.type, req.namespace, req.name ?? '')
  if (entry === undefined) throw notFound(req.type, req.name ?? '')
  return entry
}

export function create (ctx: WriteContext, req: ApiRequest): ApiResponse {
  if (req.name !== undefined) throw methodNotAllowed(`the server does not allow this method on the requested resource (post ${req.type.plural} ${req.name})`)
  const body = requireObjectBody(req.body)
  checkIdentity(req, body)
  const meta = isObject(body.metadata) ? body.metadata : {}
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string') {
    body.metadata = { ...meta, name: `${meta.generateName}${randomSuffix()}` }
  }
  const name = String(metadataOf(body).name ?? '')
  checkNamespaceAcceptsCreate(ctx, req.type, req.namespace, name)
  const object = prepare(ctx, req.type, body, undefined, req.namespace)
  if (ctx.store.get(req.type, req.namespace, name) !== undefined) throw alreadyExists(req.type, name)
  const managers = updateManagers(ctx, req.type, undefined, object, updateManagerName(req.query, req.userAgent))
  const [entry] = commit(ctx, req.type, undefined, object, managers, isDryRun(req.query))
  return { code: 201, body: toWire(entry) }
}

/** PUT, and the second half of a merge/strategic/JSON patch. */
export function replace (ctx: WriteContext, req: ApiRequest, body = requireObjectBody(req.body), given?: StoredEntry): ApiResponse {
  checkIdentity(req, body)
  const before = given ?? existing(ctx, req)
  const version = metadataOf(body).resourceVersion
  if (version !== undefined && version !== '' && version !== metadataOf(before.object).resourceVersion) throw conflict(req.type, req.name ?? '')
  const object = prepare(ctx, req.type, body, before.object, req.namespace)
  const managers = updateManagers(ctx, req.type, before, object, updateManagerName(req.query, req.userAgent))
  const [entry] = commit(ctx, req.type, before, object, managers, isDryRun(req.query))
  return { code: 200, body: toWire(entry) }
}

export function patch (ctx: WriteContext, req: ApiRequest): ApiResponse {
  if (req.query.has('force')) throw failure(422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch')
  const before = existing(ctx, req)
  const current = toWire(before)
  let patched: JsonObject
  if (req.contentType === 'application/json-patch+json') patched = jsonPatch(current, req.body)
  else if (req.contentType === 'application/merge-patch+json') patched = mergePatch(current, requireObjectBody(req.body)) as JsonObject
  else patched = keyedMerge(current, requireObjectBody(req.body)) as JsonObject
  return replace(ctx, req, patched, before)
}

function precondition (req: ApiRequest, before: StoredEntry): void {
  const options = isObject(req.body) && isObject(req.body.preconditions) ? req.body.preconditions : {}
  const meta = metadataOf(before.object)
  if (options.uid !== undefined && options.uid !== meta.uid) throw conflict(req.type, req.name ?? '', `Precondition failed: UID in precondition: ${String(options.uid)}, UID in object meta: ${String(meta.uid)}`)
  if (options.resourceVersion !== undefined && options.resourceVersion !== meta.resourceVersion) {
    throw conflict(req.type, req.name ?? '', `Precondition failed: ResourceVersion in precondition: ${String(options.resourceVersion)}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`)
  }
}

/** Namespaces go Terminating (finalised later by the namespace controller) and come back as the object; the rest answer a Success Status. */
export function remove (ctx: WriteContext, req: ApiRequest, before = existing(ctx, req)): ApiResponse {
  precondition(req, before)
  const dryRun = isDryRun(req.query)
  const meta = metadataOf(before.object)
  if (req.type.kind === 'Namespace') {
    if (meta.deletionTimestamp !== undefined || dryRun) return { code: 200, body: toWire(before) }
    const object = { ...before.object, metadata: { ...meta, deletionTimestamp: ctx.now().toISOString().replace(/\.\d+Z$/, 'Z') }, status: { phase: 'Terminating' } }
    return { code: 200, body: toWire(ctx.store.put({ ...before, object })) }
  }
  if (!dryRun) ctx.store.remove(req.type, req.namespace, req.name ?? '')
  return { code: 200, body: success(req.type, String(meta.name), meta.uid as string | undefined) }
}

export function removeCollection (ctx: WriteContext, req: ApiRequest): ApiResponse {
  const labels = parseLabelSelector(req.query.get('labelSelector'))
  const fields = parseFieldSelector(req.query.get('fieldSelector'))
  const doomed = ctx.store.list(req.type, req.namespace).filter((e) => labels(metadataOf(e.object).labels) && fields(e.object))
  for (const entry of doomed) remove(ctx, { ...req, name: String(metadataOf(entry.object).name), namespace: metadataOf(entry.object).namespace as string | undefined, body: undefined }, entry)
  const items = doomed.map((e) => { const { apiVersion: _a, kind: _k, ...rest } = toWire(e); return rest })
  return { code: 200, body: { kind: `${req.type.kind}List`, apiVersion: groupVersion(req.type), metadata: { resourceVersion: ctx.store.currentResourceVersion() }, items } }
}
