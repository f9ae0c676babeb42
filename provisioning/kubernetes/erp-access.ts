/**
 * How the portal reaches an instance's ERP on Kubernetes. `service-dns`: the Service's cluster DNS
 * name, which only resolves inside the cluster. `api-proxy`: the API server's Service proxy
 * (`<server>/api/v1/namespaces/<ns>/services/<name>:<port>/proxy/`), sent with the kubeconfig's
 * credentials and TLS settings, for a portal that runs outside the cluster.
 */
import { request as httpRequest } from 'node:http'
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

/** A fetch for the API proxy: node's http(s) client with what the kubeconfig adds (token or exec credentials, CA, client certificate). */
export function kubeAuthenticatedFetch (kubeConfig: KubeConfig): RpcFetch {
  return async (url, init) => {
    const options: RequestOptions = { method: init.method, headers: { ...init.headers }, signal: init.signal }
    await kubeConfig.applyToHTTPSOptions(options)
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    return await new Promise<Response>((resolve, reject) => {
      const request = send(url, options, (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          const headers = new Headers()
          for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') headers.set(name, value)
          resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 502, headers }))
        })
        answer.on('error', reject)
      })
      request.on('error', reject)
      request.end(init.body)
    })
  }
}
