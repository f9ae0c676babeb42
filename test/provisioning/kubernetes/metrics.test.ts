/** readUsage against the fake API server's metrics.k8s.io: PodMetrics of the instance's pods, the claim's capacity, metrics-server missing. */
import t from 'tap'
import { CustomObjectsApi } from '@kubernetes/client-node'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { sumPodMetrics } from '../../../provisioning/kubernetes/metrics.ts'
import { rejection } from '../../support/kube/client-helpers.ts'
import { instanceSpec, QUOTA, setup, TENANT_ID, waitForState } from './setup.ts'

t.test('a running instance: its pods\' usage summed, and its claim\'s capacity', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await backend.provision(instanceSpec({ subdomain: 'other' }))
  await waitForState(backend, spec, 'running')
  kube.setPodUsage('erp-acme', 'erp-shop', { cpu: '250m', memory: '300Mi' })
  kube.setPodUsage('erp-acme', 'erp-other', { cpu: '2', memory: '1Gi' })

  const usage = await backend.readUsage(spec, { running: true, timeoutMs: 2000 })
  t.same(usage, { cpuCores: 0.25, memoryMb: 300, volumeMb: null, volumeCapacityMb: 10 * 1024 }, 'only this instance\'s pod; the claim is 10 GiB')
  const asked = kube.requests.find((r) => r.path === '/apis/metrics.k8s.io/v1beta1/namespaces/erp-acme/pods')
  t.equal(asked?.query.labelSelector, 'app.kubernetes.io/name=erp,app.kubernetes.io/instance=shop', 'selected by the Deployment\'s labels')
  t.same(kube.internalErrors, [])
})

t.test('not running: nothing is asked of metrics-server, the claim still is', async (t) => {
  const { kube, backend } = await setup(t, { metricsServer: false })
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await backend.stop(spec)
  const usage = await backend.readUsage(spec, { running: false, timeoutMs: 2000 })
  t.same(usage, { cpuCores: 0, memoryMb: 0, volumeMb: null, volumeCapacityMb: 10240 })
  t.notOk(kube.requests.some((r) => r.path.startsWith('/apis/metrics.k8s.io')))
})

t.test('without metrics-server the API answers 404 Status, which is BackendUnavailableError', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  kube.setMetricsServer(false)
  const error = await backend.readUsage(spec, { running: true, timeoutMs: 2000 }).then(() => undefined, (e: unknown) => e)
  t.ok(error instanceof BackendUnavailableError, String(error))
  t.match((error as BackendUnavailableError).message, /metrics-server is not installed/)
  t.match((error as BackendUnavailableError).hint, /install metrics-server/)

  // The wire answer is the API server's own Status for an unknown group.
  const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi)
  const status = await rejection(custom.listNamespacedCustomObject({ group: 'metrics.k8s.io', version: 'v1beta1', namespace: 'erp-acme', plural: 'pods' }))
  t.match(status, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' })
})

t.test('the fake serves PodMetrics in metrics-server\'s shape and refuses malformed usage', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  kube.setPodUsage('erp-acme', 'erp-shop', { cpu: '1500m', memory: '512Mi' })
  const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi)
  const list = await custom.listNamespacedCustomObject({ group: 'metrics.k8s.io', version: 'v1beta1', namespace: 'erp-acme', plural: 'pods' }) as { kind: string, items: Array<Record<string, any>> }
  t.equal(list.kind, 'PodMetricsList')
  t.equal(list.items.length, 1)
  const [pod] = list.items
  t.match(pod, { metadata: { name: /^erp-shop-/, namespace: 'erp-acme' }, window: '15s', containers: [{ name: 'erp', usage: { cpu: '1500m', memory: '512Mi' } }] })
  t.ok(!Number.isNaN(Date.parse(pod?.timestamp)), 'timestamp is a time')
  const one = await custom.getNamespacedCustomObject({ group: 'metrics.k8s.io', version: 'v1beta1', namespace: 'erp-acme', plural: 'pods', name: pod?.metadata.name }) as Record<string, any>
  t.equal(one.kind, 'PodMetrics')
  t.throws(() => kube.setPodUsage('erp-acme', 'erp-shop', { cpu: 'lots', memory: '1Gi' }), /cpu must be a non-negative resource quantity/)
  t.same(sumPodMetrics([pod as never, { containers: [{ usage: { cpu: '500m', memory: '512Mi' } }] }]), { cpuCores: 2, memoryMb: 1024 }, 'pods of a rollout add up')
  t.same(kube.internalErrors, [])
})
