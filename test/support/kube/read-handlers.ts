/** GET of one object (and its status sub-resource) and LIST with label/field selectors and paging. */
import type { ApiRequest, ApiResponse } from './api-request.ts'
import type { JsonObject } from './merge.ts'
import { groupVersion, type ResourceType } from './resources.ts'
import { parseFieldSelector, parseLabelSelector } from './selectors.ts'
import { failure, methodNotAllowed, notFound } from './status.ts'
import { metadataOf } from './store.ts'

/** Where reads come from: the store, or (for Pods) the simulated workloads. Objects as the API returns them. */
export interface ObjectSource {
  list: (type: ResourceType, namespace?: string) => JsonObject[]
  get: (type: ResourceType, namespace: string | undefined, name: string) => JsonObject | undefined
  resourceVersion: () => string
}

export function getOne (source: ObjectSource, req: ApiRequest): ApiResponse {
  const object = source.get(req.type, req.namespace, req.name ?? '')
  if (object === undefined) throw notFound(req.type, req.name ?? '')
  return { code: 200, body: object }
}

function continueToken (key: string): string {
  return Buffer.from(JSON.stringify({ v: 'fake/v1', k: key })).toString('base64url')
}

function afterToken (token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k?: unknown }
    if (typeof parsed.k === 'string') return parsed.k
  } catch {}
  throw failure(400, `continue key is not valid: ${token}`)
}

export function list (source: ObjectSource, req: ApiRequest): ApiResponse {
  if (req.query.get('watch') === 'true' || req.query.get('watch') === '1') {
    throw methodNotAllowed('watch is not implemented by the fake kube-apiserver (test/support/kube); poll with GET/LIST instead')
  }
  const labels = parseLabelSelector(req.query.get('labelSelector'))
  const fields = parseFieldSelector(req.query.get('fieldSelector'))
  const keyOf = (o: JsonObject): string => `${String(metadataOf(o).namespace ?? '')}/${String(metadataOf(o).name)}`
  let items = source.list(req.type, req.namespace)
    .filter((o) => labels(metadataOf(o).labels) && fields(o))
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0))
  const token = req.query.get('continue')
  if (token !== null && token !== '') {
    const after = afterToken(token)
    items = items.filter((o) => keyOf(o) > after)
  }
  const metadata: JsonObject = { resourceVersion: source.resourceVersion() }
  const limit = Number(req.query.get('limit') ?? 0)
  if (Number.isInteger(limit) && limit > 0 && items.length > limit) {
    metadata.continue = continueToken(keyOf(items[limit - 1] as JsonObject))
    metadata.remainingItemCount = items.length - limit
    items = items.slice(0, limit)
  }
  // List items carry no kind/apiVersion, as the real server sends them.
  const bare = items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest)
  return { code: 200, body: { kind: `${req.type.kind}List`, apiVersion: groupVersion(req.type), metadata, items: bare } }
}
