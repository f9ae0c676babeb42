/** Shared setup of the Kubernetes backend tests: the fake API server, the backend on it, and specs. */
import type { Test } from 'tap'
import { fakeKubeApiServer, type FakeKubeApiServer, type FakeKubeApiServerOptions, type KubeObject } from '../../support/kube/fake-api-server.ts'
import { waitFor } from '../../support/kube/client-helpers.ts'
import type { InstanceSpec, ObservedState, TenantQuota } from '../../../provisioning/backend.ts'
import { createKubernetesBackend, type KubernetesBackend, type KubernetesBackendOptions } from '../../../provisioning/kubernetes/index.ts'

export const QUOTA: TenantQuota = { instances: 3, memoryMb: 8192, cpuMillicores: 4000, storageGb: 50 }
export const TENANT_ID = '5d1c7e0a-4a44-4c1e-9a4b-2f0f3b1f9a10'

export function instanceSpec (overrides: Partial<InstanceSpec> = {}): InstanceSpec {
  const subdomain = overrides.subdomain ?? 'shop'
  return {
    instanceUid: `inst-${subdomain}-0001`,
    tenantId: TENANT_ID,
    tenantSubdomain: 'acme',
    subdomain,
    erpVersion: '17.0',
    host: `${subdomain}.erp.example.com`,
    resources: { memoryMb: 2048, cpuMillicores: 1500, storageGb: 10, workers: 2 },
    database: { host: 'db.internal', port: 5432, name: `erp_${subdomain}`, user: `erp_${subdomain}`, password: 'p@ss:w0rd/with=odd chars' },
    ...overrides
  }
}

export interface Setup {
  kube: FakeKubeApiServer
  backend: KubernetesBackend
}

/** A fake API server and a backend on it (quick retries); both closed in teardown. */
export async function setup (t: Test, fake: FakeKubeApiServerOptions = {}, options: Partial<KubernetesBackendOptions> = {}): Promise<Setup> {
  const kube = await fakeKubeApiServer(t, fake)
  const backend = createKubernetesBackend({ kubeConfig: kube.kubeConfig, retryBaseMs: 5, ...options })
  t.teardown(() => backend.close())
  return { kube, backend }
}

/** Polls observe() until the instance is in `state`; returns the observation. */
export async function waitForState (backend: KubernetesBackend, spec: InstanceSpec, state: ObservedState, timeoutMs = 3000) {
  return waitFor(async () => {
    const observation = await backend.observe(spec)
    return observation.state === state && observation
  }, { timeoutMs, intervalMs: 20 })
}

/** Name → resourceVersion (and generation) of the objects, to compare before/after. */
export function versions (kube: FakeKubeApiServer, objects: Array<[kind: string, namespace: string | undefined, name: string]>): Record<string, string> {
  return Object.fromEntries(objects.map(([kind, namespace, name]) => {
    const object = kube.get(kind, namespace, name)
    if (object === undefined) throw new Error(`${kind} ${name} does not exist`)
    return [`${kind}/${name}`, `${String(object.metadata?.resourceVersion)}#${String(object.metadata?.generation ?? '-')}`]
  }))
}

export const instanceObjects = (subdomain: string, namespace = 'erp-acme'): Array<[string, string, string]> => [
  ['Secret', namespace, `erp-${subdomain}-db`],
  ['PersistentVolumeClaim', namespace, `erp-${subdomain}-data`],
  ['Deployment', namespace, `erp-${subdomain}`],
  ['Service', namespace, `erp-${subdomain}`],
  ['Ingress', namespace, `erp-${subdomain}`]
]

export type { KubeObject }
