/**
 * How the portal reaches an instance's ERP on Kubernetes. `service-dns`: the Service's cluster DNS
 * name, which only resolves inside the cluster. `api-proxy`: the API server's Service proxy
 * (`<server>/api/v1/namespaces/<ns>/services/<name>:<port>/proxy/`), sent with the kubeconfig's
 * credentials and TLS settings, for a portal that runs outside the cluster.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest, type RequestOptions } from 'node:https'
import type { KubeConfig } from '@kubernetes/client-node'
import type { RpcFetch } from '../erp/odoo-rpc.ts'
import { ERP_PORT, namespaceOf, workloadOf } from './names.ts'

export type KubeErpAccess = 'service-dns' | 'api-proxy'

export function erpUrl (access: KubeErpAccess, server: string, ref: { tenantSubdomain: string, subdomain: string }): string {
  const namespace = namespaceOf(ref.tenantSubdomain)
  const service = workloadOf(ref.subdomain)
  if (access === 'service-dns') return `http://${service}.${namespace}.svc:${ERP_PORT}`
  return `${server.replace(/\/$/, '')}/api/v1/namespaces/${namespace}/services/${service}:${ERP_PORT}/proxy/`
}

/**
 * A GET-or-any request through the API server with what the kubeconfig adds (token or exec
 * credentials, CA, client certificate), answering as soon as the headers are in: the body is the
 * response stream itself, read as it arrives, never held whole (a backup archive can be gigabytes).
 */
export function kubeAuthenticatedStream (kubeConfig: KubeConfig) {
  return async (url: URL, init: { method?: string, headers?: Record<string, string>, body?: string, signal?: AbortSignal }): Promise<IncomingMessage> => {
    const options: RequestOptions = { method: init.method ?? 'GET', headers: { ...init.headers }, ...(init.signal === undefined ? {} : { signal: init.signal }) }
    await kubeConfig.applyToHTTPSOptions(options)
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    return await new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(url, options, resolve)
      request.on('error', reject)
      request.end(init.body)
    })
  }
}

/** A fetch for the API proxy: the streaming request above, its (small) answer read whole. */
export function kubeAuthenticatedFetch (kubeConfig: KubeConfig): RpcFetch {
  const stream = kubeAuthenticatedStream(kubeConfig)
  return async (url, init) => {
    const answer = await stream(url, { method: init.method, headers: { ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }), signal: init.signal })
    const chunks: Buffer[] = []
    for await (const chunk of answer) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') headers.set(name, value)
    return new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 502, headers })
  }
}
