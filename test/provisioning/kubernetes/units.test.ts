/** The pure parts: quantities, backoff, and judging a Deployment and its pods. */
import t from 'tap'
import type { V1Deployment, V1Pod } from '@kubernetes/client-node'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { backoffMs } from '../../../provisioning/kubernetes/api-call.ts'
import { deploymentManifest } from '../../../provisioning/kubernetes/deployment-manifest.ts'
import { gibibytes, mebibytes, millicores, parseQuantity } from '../../../provisioning/kubernetes/quantities.ts'
import { observationOf } from '../../../provisioning/kubernetes/rollout.ts'

t.test('quantities are written in the canonical form the API server reads back', async (t) => {
  t.equal(mebibytes(2048), '2Gi')
  t.equal(mebibytes(1536), '1536Mi')
  t.equal(mebibytes(1024 * 1024), '1Ti')
  t.equal(gibibytes(10), '10Gi')
  t.equal(gibibytes(2048), '2Ti')
  t.equal(millicores(2000), '2')
  t.equal(millicores(1500), '1500m')
  t.throws(() => mebibytes(0), RangeError)
  t.throws(() => millicores(1.5), RangeError)
  t.equal(parseQuantity('5Gi'), 5 * 2 ** 30)
  t.equal(parseQuantity('500m'), 0.5)
  t.equal(parseQuantity('1e3'), 1000)
  t.ok(Number.isNaN(parseQuantity('lots')))
})

t.test('backoff: exponential with jitter, capped; Retry-After wins', async (t) => {
  const settings = { retryBaseMs: 100, maxRetryDelayMs: 1000 }
  const network = { kind: 'network' } as const
  t.equal(backoffMs(0, network, settings, () => 0), 50, 'at least half the step')
  t.equal(backoffMs(0, network, settings, () => 1), 100)
  t.equal(backoffMs(3, network, settings, () => 1), 800)
  t.equal(backoffMs(8, network, settings, () => 1), 1000, 'capped')
  const throttled = { kind: 'status', code: 429, status: undefined, retryAfterMs: 2000 } as const
  t.equal(backoffMs(0, throttled, { retryBaseMs: 100, maxRetryDelayMs: 30_000 }, () => 0), 2000)
  t.equal(backoffMs(0, throttled, settings, () => 0), 1000, 'a Retry-After longer than the cap waits the cap')
})

const deployment = (spec: { replicas?: number }, status: Record<string, unknown>, generation = 2): V1Deployment =>
  ({ metadata: { name: 'erp-shop', generation }, spec: { ...spec, selector: {}, template: {} }, status } as V1Deployment)

t.test('judging a Deployment as kubectl rollout status does', async (t) => {
  t.match(observationOf(deployment({ replicas: 1 }, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }), undefined),
    { state: 'starting', message: /controller to see the new spec/ }, 'a generation the controller has not seen yet is not rolled out')
  t.match(observationOf(deployment({ replicas: 1 }, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 1 }), undefined),
    { state: 'starting', message: '1 old replica(s) pending termination' })
  t.same(observationOf(deployment({ replicas: 1 }, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }), undefined),
    { state: 'running', message: '1/1 replicas available' })
  t.match(observationOf(deployment({ replicas: 0 }, { observedGeneration: 1, replicas: 1, availableReplicas: 1 }), undefined),
    { state: 'running', message: /stopping/ }, 'scaled to 0 but still serving: not stopped yet')
  t.match(observationOf(deployment({ replicas: 0 }, { observedGeneration: 2 }), undefined), { state: 'stopped' })
  t.match(observationOf(deployment({}, { observedGeneration: 2, replicas: 1, updatedReplicas: 1 }), undefined), { state: 'starting' }, 'replicas default to 1')
})

t.test('a container that keeps exiting non-zero is an error; terminating pods are ignored', async (t) => {
  const pod = (status: Record<string, unknown>, deleting = false): V1Pod => ({
    metadata: { name: 'erp-shop-abc-12345', ...(deleting ? { deletionTimestamp: new Date() } : {}) },
    status: { containerStatuses: [{ name: 'erp', image: 'odoo:17.0', imageID: '', ready: false, restartCount: 4, ...status }] }
  } as V1Pod)
  const progressing = deployment({ replicas: 1 }, { observedGeneration: 2, replicas: 1, updatedReplicas: 1 })
  const exited = { state: { terminated: { exitCode: 1 } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }
  t.same(observationOf(progressing, [pod(exited)]), { state: 'error', message: 'pod erp-shop-abc-12345: container erp exited with code 1; restarted 4 times, last exit code 1 (Error)' })
  t.match(observationOf(progressing, [pod(exited, true)]), { state: 'starting' })
  t.match(observationOf(progressing, []), { state: 'starting', message: '0/1 replicas available' })
})

t.test('the Deployment runs the templated image, or a fixed one for every version', async (t) => {
  const spec: InstanceSpec = {
    instanceUid: '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
    tenantId: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
    tenantSubdomain: 'acme',
    subdomain: 'acme-prod',
    erpVersion: '17.0',
    host: 'acme-prod.erp.example.com',
    resources: { memoryMb: 2048, cpuMillicores: 1500, storageGb: 10, workers: 3 },
    database: { host: 'db.example.com', port: 5432, name: 'erp_x', user: 'erp_x', password: 'pw' }
  }
  const settings = { healthPath: '/web/health', addonsMountPath: '/mnt/extra-addons', dataMountPath: '/var/lib/odoo', fsGroup: 101, stopGraceSeconds: 30 }
  const imageOf = (imageTemplate: string, erpVersion: string) =>
    deploymentManifest({ ...spec, erpVersion }, 1, { ...settings, imageTemplate }).spec?.template.spec?.containers[0]?.image
  t.equal(imageOf('registry.example/erp:{version}', '18.0'), 'registry.example/erp:18.0')
  t.equal(imageOf('registry.example/erp:pinned', '16.0'), 'registry.example/erp:pinned')
  t.equal(imageOf('registry.example/erp:pinned', '18.0'), 'registry.example/erp:pinned')
})
