/**
 * From an HTTP method + resource path to a handler: `/api/v1/...` and `/apis/<group>/<version>/...`,
 * namespaced (`/namespaces/<ns>/<resource>[/<name>[/<subresource>]]`) and cluster-scoped.
 */
import { loadYaml } from '@kubernetes/client-node'
import type { ApiRequest, ApiResponse } from './api-request.ts'
import { apply } from './apply.ts'
import { isObject } from './merge.ts'
import type { PodLogs } from './pod-logs.ts'
import type { SimPod } from './pods.ts'
import { getOne, list, type ObjectSource } from './read-handlers.ts'
import { findByPath, type ResourceType } from './resources.ts'
import { scale } from './scale.ts'
import { badRequest, failure, methodNotAllowed, noRoute } from './status.ts'
import { create, patch, remove, removeCollection, replace } from './write-handlers.ts'
import type { WriteContext } from './write-path.ts'

export interface RouterDeps {
  ctx: WriteContext
  source: ObjectSource
  logs: PodLogs
  findPod: (namespace: string, name: string) => SimPod | undefined
  /** Pods created and deleted directly (bare-pods.ts). */
  barePods: { create: (req: ApiRequest) => ApiResponse, remove: (req: ApiRequest) => ApiResponse }
  /** Told the propagationPolicy of a Job deletion before the store removes the Job. */
  deletingJobs: (policy: string | undefined) => void
}

interface ParsedPath { type: ResourceType, namespace?: string, name?: string, subresource?: string }

export function parseResourcePath (path: string): ParsedPath {
  const match = /^\/api\/(v1)(\/.*)?$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)(\/.*)?$/.exec(path)
  if (match === null) throw noRoute()
  const [group, version] = (match[1] ?? '').includes('/') ? (match[1] ?? '').split('/') as [string, string] : ['', match[1] ?? '']
  let segments: string[]
  try {
    segments = (match[2] ?? '').split('/').filter((s) => s !== '').map(decodeURIComponent)
  } catch {
    throw badRequest(`invalid path: ${path}`)
  }
  const namespaced = segments[0] === 'namespaces' && segments.length >= 3 && !(segments.length === 3 && ['status', 'finalize'].includes(segments[2] ?? ''))
  const [namespace, plural, name, subresource, ...extra] = namespaced ? segments.slice(1) : [undefined, ...segments]
  const type = findByPath(group, version, plural ?? '')
  if (type === undefined || extra.length > 0 || (namespaced && !type.namespaced)) throw noRoute()
  if (type.namespaced && !namespaced && name !== undefined) throw noRoute()
  return { type, namespace, name, subresource }
}

/** Decodes a request body by its content type: JSON, or YAML for apply patches. */
export function decodeBody (raw: string, contentType: string): unknown {
  if (raw.trim() === '') return undefined
  try {
    return JSON.parse(raw)
  } catch (error) {
    if (contentType === 'application/apply-patch+yaml' || contentType === 'application/yaml') {
      try {
        return loadYaml(raw)
      } catch {}
    }
    throw badRequest(`error decoding body: ${(error as Error).message}`)
  }
}

/** From the query (what client-node sends) or the DeleteOptions body; `orphanDependents` is the old spelling. */
function propagationPolicy (req: ApiRequest): string | undefined {
  const body = isObject(req.body) ? req.body : {}
  const given = req.query.get('propagationPolicy') ?? (typeof body.propagationPolicy === 'string' ? body.propagationPolicy : undefined)
  if (given !== undefined && !['Orphan', 'Background', 'Foreground'].includes(given)) throw badRequest(`propagationPolicy: Unsupported value: "${given}"`)
  if (given === undefined && (req.query.get('orphanDependents') === 'false' || body.orphanDependents === false)) return 'Background'
  return given
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']

export function route (deps: RouterDeps, req: ApiRequest): ApiResponse {
  const { ctx, source } = deps
  const { method, type, subresource } = req
  if (subresource === 'log' && type.kind === 'Pod' && method === 'GET') {
    return deps.logs.read(type, deps.findPod(req.namespace ?? '', req.name ?? ''), req)
  }
  if (subresource === 'scale' && type.kind === 'Deployment' && ['GET', 'PUT', 'PATCH'].includes(method)) return scale(ctx, req)
  if (subresource === 'status' && method === 'GET') return getOne(source, req)
  if (subresource !== undefined) {
    if (type.subresources.includes(subresource)) throw methodNotAllowed(`the fake kube-apiserver does not implement ${method} on ${type.plural}/${subresource}`)
    throw noRoute()
  }
  if (type.kind === 'Pod' && method === 'POST' && req.name === undefined) return deps.barePods.create(req)
  if (type.kind === 'Pod' && method === 'DELETE' && req.name !== undefined) return deps.barePods.remove(req)
  if (type.readOnly && method !== 'GET') {
    throw methodNotAllowed(`the fake kube-apiserver serves ${type.plural} read-only but for create and delete of bare pods (the others are synthesised from Deployments and Jobs)`)
  }
  switch (method) {
    case 'GET': return req.name === undefined ? list(source, req) : getOne(source, req)
    case 'POST': return create(ctx, req)
    case 'PUT':
      if (req.name === undefined) throw methodNotAllowed(`the server does not allow this method on the requested resource (put ${type.plural})`)
      return replace(ctx, req)
    case 'PATCH':
      if (req.name === undefined) throw methodNotAllowed(`the server does not allow this method on the requested resource (patch ${type.plural})`)
      if (req.contentType === 'application/apply-patch+yaml') return apply(ctx, req)
      if (PATCH_TYPES.includes(req.contentType)) return patch(ctx, req)
      throw failure(415, `the body of the request was in an unknown format - accepted media types include: ${[...PATCH_TYPES, 'application/apply-patch+yaml'].join(', ')}`)
    case 'DELETE':
      if (type.kind === 'Job') deps.deletingJobs(propagationPolicy(req))
      return req.name === undefined ? removeCollection(ctx, req) : remove(ctx, req)
    default: throw methodNotAllowed(`the server does not allow this method on the requested resource (${method.toLowerCase()} ${type.plural})`)
  }
}
