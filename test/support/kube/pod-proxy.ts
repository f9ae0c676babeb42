/**
 * The pod proxy subresource, `/api/v1/namespaces/<ns>/pods/[<scheme>:]<name>[:<port>]/proxy/<path>`,
 * as the API server answers it (pkg/registry/core/pod ResourceLocation and the upgrade-aware
 * proxy): 404 Status for a missing pod; 400 `address not allowed` while the pod has no IP (Pending);
 * 503 `error trying to reach service: dial tcp <ip>:<port>: connect: connection refused` when nothing
 * listens there. Otherwise the request (method, path, query, headers such as Range, body) goes to
 * what runs in the pod and its status, headers and body stream back unchanged, as they come.
 * The port defaults to the first container port, as on a cluster.
 */
import { request, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import { isObject } from './merge.ts'
import { containersOf, type SimPod } from './pods.ts'
import { findByName } from './resources.ts'
import { badRequest, failure, notFound, type KubeError } from './status.ts'

const POD_PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/proxy(\/.*)?$/
/** Not passed on: the caller's API credentials and what belongs to its own connection. */
const NOT_FORWARDED = new Set(['authorization', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'])

export interface PodProxyDeps {
  find: (namespace: string, name: string) => SimPod | undefined
  /** Whether a real container answers at the pod's IP (a bare pod run by the pod runtime). */
  runsForReal: (namespace: string, name: string) => boolean
}

export const isPodProxyPath = (path: string): boolean => POD_PROXY_PATH.test(path)

/**
 * Answers the proxied request on `res` and resolves with the status sent. Errors before anything
 * was sent are thrown as the API server's Status.
 */
export async function podProxy (deps: PodProxyDeps, method: string, url: URL, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<number> {
  const match = POD_PROXY_PATH.exec(url.pathname)
  if (match === null) throw new Error('not a pod proxy path')
  const namespace = decodeURIComponent(match[1] ?? '')
  const parts = decodeURIComponent(match[2] ?? '').split(':')
  if (parts.length > 3) throw badRequest(`invalid pod request "${parts.join(':')}"`)
  const [name = '', port = ''] = parts.length === 3 ? [parts[1], parts[2]] : parts
  const pod = deps.find(namespace, name)
  if (pod === undefined) throw notFound(findByName('Pod'), name)
  if (pod.ip === '') throw badRequest('address not allowed')
  const firstPort = containersOf(pod).flatMap((c) => (Array.isArray(c.ports) ? c.ports.filter(isObject) : [])).map((p) => String(p.containerPort))[0]
  const target = Number(port === '' ? firstPort ?? '80' : port)
  const refused: KubeError = failure(503, `error trying to reach service: dial tcp ${pod.ip}:${target}: connect: connection refused`)
  if (!deps.runsForReal(namespace, name)) throw refused
  const forwarded = Object.fromEntries(Object.entries(headers).filter(([key]) => !NOT_FORWARDED.has(key)))
  return await new Promise<number>((resolve, reject) => {
    const upstream = request({ host: pod.ip, port: target, method, path: `${match[3] ?? '/'}${url.search}`, headers: forwarded }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
      answer.on('error', () => res.destroy())
      resolve(answer.statusCode ?? 502)
    })
    upstream.on('error', (error) => {
      if (res.headersSent) { res.destroy(); return }
      reject((error as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? refused : failure(503, `error trying to reach service: ${error.message}`))
    })
    res.on('close', () => upstream.destroy())
    upstream.end(raw === '' ? undefined : raw)
  })
}
