/**
 * Helpers for tests that drive the fake through @kubernetes/client-node: reading the Status
 * out of an ApiException, server-side apply options, polling, and small manifests.
 */
import { ApiException, PatchStrategy, setHeaderOptions, type V1Status } from '@kubernetes/client-node'

/**
 * The Status an ApiException carries. client-node 2.x leaves `body` as the raw response
 * text for error codes the OpenAPI spec does not list (404, 409, 422, 429, 5xx …), and
 * `undefined` for 401: parse it, do not expect an object.
 */
export function statusOf (error: unknown): V1Status & { code: number } {
  if (!(error instanceof ApiException)) throw error
  const body: unknown = typeof error.body === 'string' && error.body !== '' ? JSON.parse(error.body) : error.body
  return { ...(body as V1Status | undefined), code: error.code }
}

/** Resolves to the Status the promise rejected with; fails if it resolved. */
export async function rejection (promise: Promise<unknown>): Promise<V1Status & { code: number }> {
  try {
    await promise
  } catch (error) {
    return statusOf(error)
  }
  throw new Error('expected the request to fail')
}

/** Options for a generated `patch…` method: server-side apply instead of the default JSON patch. */
export const serverSideApply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply)
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch)

/** Polls until `check` returns something other than undefined/false. */
export async function waitFor<T> (check: () => Promise<T | undefined | false>, { timeoutMs = 3000, intervalMs = 10 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const result = await check()
    if (result !== undefined && result !== false) return result
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export interface DeploymentOptions { replicas?: number, image?: string, annotations?: Record<string, string>, strategy?: 'Recreate' | 'RollingUpdate', resources?: Record<string, unknown> }

export function deploymentManifest (namespace: string, name: string, o: DeploymentOptions = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      ...(o.replicas === undefined ? {} : { replicas: o.replicas }),
      ...(o.strategy === undefined ? {} : { strategy: { type: o.strategy } }),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
        spec: { containers: [{ name: 'odoo', image: o.image ?? 'odoo:17.0', ports: [{ containerPort: 8069 }], ...(o.resources === undefined ? {} : { resources: o.resources }) }] }
      }
    }
  }
}

export const namespaceManifest = (name: string, labels: Record<string, string> = {}) =>
  ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })
