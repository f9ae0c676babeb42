/**
 * metav1.Status bodies, worded as the real API server words them
 * (k8s.io/apimachinery/pkg/api/errors), thrown as `KubeError` by handlers.
 */
import { qualifiedKind, qualifiedResource, type ResourceType } from './resources.ts'

export interface StatusCause { reason: string, message: string, field?: string }

export interface StatusBody {
  kind: 'Status'
  apiVersion: 'v1'
  metadata: Record<string, never>
  status: 'Failure' | 'Success'
  message?: string
  reason?: string
  details?: { name?: string, group?: string, kind?: string, uid?: string, causes?: StatusCause[], retryAfterSeconds?: number }
  code: number
}

export class KubeError extends Error {
  readonly status: StatusBody
  readonly headers: Record<string, string>

  constructor (status: StatusBody, headers: Record<string, string> = {}) {
    super(status.message)
    this.status = status
    this.headers = headers
  }
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict', 410: 'Expired', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType', 422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout'
}

export function failure (code: number, message: string, details?: StatusBody['details'], reason = REASON_BY_CODE[code] ?? 'Unknown'): KubeError {
  const status: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }
  if (details !== undefined) status.details = details
  return new KubeError(status)
}

function resourceDetails (type: ResourceType, name: string): StatusBody['details'] {
  return type.group === '' ? { name, kind: type.plural } : { name, group: type.group, kind: type.plural }
}

export function notFound (type: ResourceType, name: string): KubeError {
  return failure(404, `${qualifiedResource(type)} "${name}" not found`, resourceDetails(type, name))
}

export function alreadyExists (type: ResourceType, name: string): KubeError {
  return failure(409, `${qualifiedResource(type)} "${name}" already exists`, resourceDetails(type, name), 'AlreadyExists')
}

export function conflict (type: ResourceType, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): KubeError {
  return failure(409, `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${why}`, resourceDetails(type, name), 'Conflict')
}

export function applyConflicts (type: ResourceType, name: string, conflicts: Array<{ manager: string, field: string }>): KubeError {
  const gv = type.group === '' ? type.version : `${type.group}/${type.version}`
  const lines = conflicts.map((c) => `conflict with "${c.manager}" using ${gv}: ${c.field}`)
  const message = conflicts.length === 1
    ? `Apply failed with 1 conflict: ${lines[0]}`
    : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n- ')}`
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.manager}" using ${gv}`, field: c.field }))
  return failure(409, message, { ...resourceDetails(type, name), causes }, 'Conflict')
}

export function invalid (type: ResourceType, name: string, causes: StatusCause[]): KubeError {
  const described = causes.map((c) => c.field === undefined ? c.message : `${c.field}: ${c.message}`)
  const list = described.length === 1 ? described[0] : `[${described.join(', ')}]`
  const details = { name, group: type.group, kind: type.kind, causes }
  if (type.group === '') delete (details as { group?: string }).group
  return failure(422, `${qualifiedKind(type)} "${name}" is invalid: ${list}`, details)
}

export function badRequest (message: string): KubeError {
  return failure(400, message)
}

export function forbidden (type: ResourceType, name: string, why: string): KubeError {
  return failure(403, `${qualifiedResource(type)} "${name}" is forbidden: ${why}`, resourceDetails(type, name))
}

export function methodNotAllowed (message: string): KubeError {
  return failure(405, message)
}

export function success (type: ResourceType, name: string, uid: string | undefined): StatusBody {
  const details = { ...resourceDetails(type, name), ...(uid === undefined ? {} : { uid }) }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 }
}

/** The 404 for a path nothing serves (an unknown resource under a known group). */
export function noRoute (): KubeError {
  return failure(404, 'the server could not find the requested resource', {}, 'NotFound')
}
