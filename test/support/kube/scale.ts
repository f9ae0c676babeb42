/** deployments/<name>/scale (autoscaling/v1 Scale): GET, PUT and merge/strategic PATCH of spec.replicas. */
import { isDryRun, type ApiRequest, type ApiResponse } from './api-request.ts'
import { pathKey } from './managed-fields.ts'
import { clone, isObject, keyedMerge, mergePatch, type JsonObject } from './merge.ts'
import { selectorToString, type LabelSelectorObject } from './selectors.ts'
import { badRequest, conflict, failure, notFound } from './status.ts'
import { metadataOf, type StoredEntry } from './store.ts'
import { commit, prepare, recordUpdate, updateManagerName, type WriteContext } from './write-path.ts'

function toScale (entry: StoredEntry): JsonObject {
  const meta = metadataOf(entry.object)
  const spec = isObject(entry.object.spec) ? entry.object.spec : {}
  const status = isObject(entry.object.status) ? entry.object.status : {}
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: meta.name ?? '', namespace: meta.namespace ?? '', uid: meta.uid ?? '', resourceVersion: meta.resourceVersion ?? '', creationTimestamp: meta.creationTimestamp ?? null },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector: selectorToString(spec.selector as LabelSelectorObject | undefined) }
  }
}

export function scale (ctx: WriteContext, req: ApiRequest): ApiResponse {
  const before = ctx.store.get(req.type, req.namespace, req.name ?? '')
  if (before === undefined) throw notFound(req.type, req.name ?? '')
  if (req.method === 'GET') return { code: 200, body: toScale(before) }
  if (!isObject(req.body)) throw badRequest('the body of the request was in an unknown format')
  let desired: JsonObject
  if (req.method === 'PUT') desired = req.body
  else if (req.contentType === 'application/merge-patch+json') desired = mergePatch(toScale(before), req.body) as JsonObject
  else if (req.contentType === 'application/strategic-merge-patch+json') desired = keyedMerge(toScale(before), req.body) as JsonObject
  else throw failure(415, `the fake kube-apiserver supports merge and strategic-merge patches on scale, not ${req.contentType}`)
  const version = metadataOf(desired).resourceVersion
  if (version !== undefined && version !== '' && version !== metadataOf(before.object).resourceVersion) throw conflict(req.type, req.name ?? '')
  const replicas = isObject(desired.spec) ? desired.spec.replicas : undefined
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) throw failure(422, `Scale.autoscaling "${req.name ?? ''}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`)
  const object = clone(before.object)
  object.spec = { ...(isObject(object.spec) ? object.spec : {}), replicas }
  const prepared = prepare(ctx, req.type, object, before.object, req.namespace)
  const changed = replicas === (isObject(before.object.spec) ? before.object.spec.replicas : undefined) ? new Set<string>() : new Set([pathKey(['f:spec', 'f:replicas'])])
  const managers = recordUpdate(ctx, req.type, before.managers, updateManagerName(req.query, req.userAgent), changed, 'scale')
  const [entry] = commit(ctx, req.type, before, prepared, managers, isDryRun(req.query))
  return { code: 200, body: toScale(entry) }
}
