/**
 * The Service proxy subresource, `/api/v1/namespaces/<ns>/services/[<scheme>:]<name>[:<port>]/proxy/<path>`,
 * as the API server answers it: 404 Status when the Service is missing, 503 Status ("no endpoints
 * available") when no ready pod matches its selector or the port is not one of its ports; else the
 * request goes to what listens behind it, here the ERP double (erp-double.ts).
 */
import type { ErpAnswer, ErpDoubles } from './erp-double.ts'
import { isObject, type JsonObject } from './merge.ts'
import type { SimPod } from './pods.ts'
import { findByName } from './resources.ts'
import { selectorObjectMatches } from './selectors.ts'
import { failure, notFound } from './status.ts'

const PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/proxy(\/.*)?$/

export interface ServiceProxyDeps {
  getService: (namespace: string, name: string) => JsonObject | undefined
  pods: (namespace: string) => SimPod[]
  erp: ErpDoubles
  /** The database the pod's ERP is configured for (db_name), if any. */
  databaseOf: (pod: SimPod) => string | undefined
}

/** Undefined when the path is not a Service proxy path. */
export function serviceProxy (deps: ServiceProxyDeps, method: string, path: string, raw: string): Promise<ErpAnswer> | undefined {
  const match = PROXY_PATH.exec(path)
  if (match === null) return undefined
  const namespace = decodeURIComponent(match[1] ?? '')
  const target = decodeURIComponent(match[2] ?? '')
  const parts = target.split(':')
  const [name, port] = parts.length === 3 ? [parts[1] ?? '', parts[2] ?? ''] : [parts[0] ?? '', parts[1] ?? '']
  const service = deps.getService(namespace, name)
  if (service === undefined) throw notFound(findByName('Service'), name)
  const spec = isObject(service.spec) ? service.spec : {}
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []
  const unavailable = failure(503, `no endpoints available for service "${target}"`)
  if (port !== '' && !ports.some((p) => String(p.port) === port || p.name === port)) throw unavailable
  const selector = isObject(spec.selector) ? spec.selector as Record<string, string> : undefined
  const ready = selector === undefined
    ? undefined
    : deps.pods(namespace).find((pod) => pod.ready && selectorObjectMatches({ matchLabels: selector }, labelsOf(pod)))
  if (ready === undefined) throw unavailable
  return deps.erp.answer(namespace, name, method, match[3] ?? '/', raw, ready.ip, deps.databaseOf(ready))
}

function labelsOf (pod: SimPod): Record<string, string> {
  const meta = isObject(pod.template.metadata) ? pod.template.metadata : {}
  return (isObject(meta.labels) ? meta.labels : {}) as Record<string, string>
}
