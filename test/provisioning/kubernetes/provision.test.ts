/** provision: the five per-instance objects, as applied, and applying twice changing nothing. */
import t from 'tap'
import { AppsV1Api } from '@kubernetes/client-node'
import { serverSideApply } from '../../support/kube/client-helpers.ts'
import { KubernetesApiError } from '../../../provisioning/kubernetes/index.ts'
import { instanceObjects, instanceSpec, QUOTA, setup, TENANT_ID, versions } from './setup.ts'

const decode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))

t.test('creates the Secret, data claim, Deployment, Service and Ingress as specified', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  const labels = { 'app.kubernetes.io/name': 'erp', 'app.kubernetes.io/instance': 'shop', 'erp.portal/instance-id': spec.instanceUid, 'app.kubernetes.io/managed-by': 'erp-portal' }

  const secret = kube.get('Secret', 'erp-acme', 'erp-shop-db')
  t.same(decode(secret?.data), { HOST: 'db.internal', PORT: '5432', USER: 'erp_shop', PASSWORD: 'p@ss:w0rd/with=odd chars', ERP_DATABASE: 'erp_shop' })
  t.match(secret?.metadata?.labels, labels)

  const claim = kube.get('PersistentVolumeClaim', 'erp-acme', 'erp-shop-data')
  t.same(claim?.spec?.accessModes, ['ReadWriteOnce'])
  t.equal(claim?.spec?.resources?.requests?.storage, '10Gi')

  const deployment = kube.get('Deployment', 'erp-acme', 'erp-shop')
  t.match(deployment?.metadata?.labels, labels)
  t.equal(deployment?.spec?.replicas, 1)
  t.same(deployment?.spec?.strategy, { type: 'Recreate' })
  t.same(deployment?.spec?.selector, { matchLabels: { 'app.kubernetes.io/name': 'erp', 'app.kubernetes.io/instance': 'shop' } })
  t.match(deployment?.spec?.template?.metadata?.labels, labels)
  const pod = deployment?.spec?.template?.spec
  t.equal(pod?.containers.length, 1)
  const container = pod?.containers[0]
  t.equal(container.image, 'odoo:17.0')
  t.same(container.envFrom, [{ secretRef: { name: 'erp-shop-db' } }])
  t.same(container.env, [{ name: 'ERP_WORKERS', value: '2' }])
  t.same(container.resources, { limits: { memory: '2Gi', cpu: '1500m' }, requests: { memory: '2Gi', cpu: '1500m' } })
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
    t.match(container[probe], { httpGet: { path: '/web/health', port: 8069 } }, probe)
  }
  t.same(container.volumeMounts, [
    { name: 'addons', mountPath: '/mnt/extra-addons', readOnly: true },
    { name: 'data', mountPath: '/var/lib/odoo' }
  ])
  t.same(pod?.volumes, [
    { name: 'addons', persistentVolumeClaim: { claimName: 'addons-acme', readOnly: true } },
    { name: 'data', persistentVolumeClaim: { claimName: 'erp-shop-data' } }
  ])

  const service = kube.get('Service', 'erp-acme', 'erp-shop')
  t.match(service?.spec?.ports, [{ port: 8069, targetPort: 8069 }])
  t.same(service?.spec?.selector, { 'app.kubernetes.io/name': 'erp', 'app.kubernetes.io/instance': 'shop' })

  const ingress = kube.get('Ingress', 'erp-acme', 'erp-shop')
  t.equal(ingress?.spec?.ingressClassName, 'nginx')
  t.same(ingress?.metadata?.annotations, { 'cert-manager.io/cluster-issuer': 'letsencrypt' })
  t.same(ingress?.spec?.tls, [{ hosts: ['shop.erp.example.com'], secretName: 'erp-shop-tls' }])
  t.match(ingress?.spec?.rules, [{ host: 'shop.erp.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'erp-shop', port: { number: 8069 } } } }] } }])

  for (const [kind, ns, name] of instanceObjects('shop')) {
    t.match(kube.get(kind, ns, name)?.metadata?.managedFields, [{ manager: 'erp-portal', operation: 'Apply' }], `${kind} applied by erp-portal`)
  }
  const writes = kube.requests.filter((r) => r.method === 'PATCH')
  t.ok(writes.length >= 5)
  t.ok(writes.every((r) => r.contentType === 'application/apply-patch+yaml' && r.query.fieldManager === 'erp-portal' && r.query.force === 'true'), 'every write is a forced server-side apply')
  t.same(kube.internalErrors, [])
})

t.test('provisioning twice changes nothing and duplicates nothing', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 0 })
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  kube.setReady('erp-acme', 'erp-shop')
  const watched = [...instanceObjects('shop'), ['Namespace', undefined, 'erp-acme'] as [string, undefined, string], ['PersistentVolumeClaim', 'erp-acme', 'addons-acme'] as [string, string, string]]
  const before = versions(kube, watched)
  await backend.provision(spec)
  t.same(versions(kube, watched), before, 'same resourceVersion and generation for every object')
  for (const kind of ['Secret', 'PersistentVolumeClaim', 'Deployment', 'Service', 'Ingress']) {
    t.equal(kube.list(kind, 'erp-acme').length, kind === 'PersistentVolumeClaim' ? 2 : 1, `one ${kind}${kind === 'PersistentVolumeClaim' ? ' (+ addons)' : ''}`)
  }
  t.equal(kube.list('Pod', 'erp-acme').length, 1, 'the pod was not replaced')
  t.same(kube.internalErrors, [])
})

t.test('provision without ensureTenant creates the namespace and addons claim, and accepts an existing namespace', async (t) => {
  const { kube, backend } = await setup(t)
  kube.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'erp-globex' } })
  await backend.provision(instanceSpec({ tenantSubdomain: 'globex', subdomain: 'books' }))
  t.ok(kube.get('Deployment', 'erp-globex', 'erp-books'))
  t.ok(kube.get('PersistentVolumeClaim', 'erp-globex', 'addons-globex'))
  t.equal(kube.get('Namespace', undefined, 'erp-globex')?.metadata?.labels?.['erp.portal/tenant'], 'globex')

  await backend.provision(instanceSpec({ tenantSubdomain: 'initech', subdomain: 'web' }))
  t.ok(kube.get('Namespace', undefined, 'erp-initech'), 'a missing namespace is created')
  t.ok(kube.get('Deployment', 'erp-initech', 'erp-web'))
  t.same(kube.internalErrors, [])
})

t.test('provision converges: a changed spec is applied, and fields someone else changed are taken back', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.provision(spec)
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const hijack = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'erp-shop', namespace: 'erp-acme' }, spec: { replicas: 3 } }
  await apps.patchNamespacedDeployment({ name: 'erp-shop', namespace: 'erp-acme', body: hijack, fieldManager: 'kubectl', force: true }, serverSideApply)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 3)

  await backend.provision({ ...spec, erpVersion: '18.0', resources: { ...spec.resources, memoryMb: 3072, storageGb: 20 } })
  const deployment = kube.get('Deployment', 'erp-acme', 'erp-shop')
  t.equal(deployment?.spec?.replicas, 1, 'replicas taken back (force)')
  t.equal(deployment?.spec?.template?.spec?.containers[0].image, 'odoo:18.0')
  t.equal(deployment?.spec?.template?.spec?.containers[0].resources.limits.memory, '3Gi')
  t.equal(kube.get('PersistentVolumeClaim', 'erp-acme', 'erp-shop-data')?.spec?.resources?.requests?.storage, '20Gi', 'the filestore grew')
  t.same(kube.internalErrors, [])
})

t.test('options: image template, ingress class, TLS issuer, storage class, paths, stop grace period', async (t) => {
  const { kube, backend } = await setup(t, {}, {
    imageTemplate: 'registry.example/erp:{version}-custom', ingressClass: 'traefik', tlsIssuer: 'internal-ca', storageClass: 'fast',
    healthPath: '/healthz', addonsMountPath: '/opt/addons', dataMountPath: '/data', fieldManager: 'portal-test', stopGraceSeconds: 75
  })
  await backend.provision(instanceSpec())
  const container = kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.template?.spec?.containers[0]
  t.equal(container.image, 'registry.example/erp:17.0-custom')
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.template?.spec?.terminationGracePeriodSeconds, 75, 'SIGTERM, then 75 s before the kubelet kills the ERP')
  t.equal(container.readinessProbe.httpGet.path, '/healthz')
  t.same(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath), ['/opt/addons', '/data'])
  const ingress = kube.get('Ingress', 'erp-acme', 'erp-shop')
  t.equal(ingress?.spec?.ingressClassName, 'traefik')
  t.equal(ingress?.metadata?.annotations?.['cert-manager.io/cluster-issuer'], 'internal-ca')
  t.equal(kube.get('PersistentVolumeClaim', 'erp-acme', 'erp-shop-data')?.spec?.storageClassName, 'fast')
  t.match(kube.get('Deployment', 'erp-acme', 'erp-shop')?.metadata?.managedFields, [{ manager: 'portal-test', operation: 'Apply' }])
  t.same(kube.internalErrors, [])
})

t.test('over the tenant quota: a 403 with the API\'s message, not retried', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, { ...QUOTA, instances: 1 })
  await backend.provision(instanceSpec())
  const error = await backend.provision(instanceSpec({ subdomain: 'books' })).catch((e: unknown) => e)
  t.type(error, KubernetesApiError)
  t.match(error, { code: 403, reason: 'Forbidden', message: /apply Deployment erp-acme\/erp-books: .*exceeded quota: erp-quota/ })
  t.equal(kube.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/deployments/erp-books')).length, 1, 'one attempt')
  t.same(kube.internalErrors, [])
})

t.test('start: false makes every object with the Deployment at 0 replicas, so no ERP pod runs until start', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec, { start: false })
  for (const [kind, name] of [['Secret', 'erp-shop-db'], ['PersistentVolumeClaim', 'erp-shop-data'], ['Service', 'erp-shop'], ['Ingress', 'erp-shop']] as const) {
    t.ok(kube.get(kind, 'erp-acme', name), `${kind} ${name}`)
  }
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 0)
  t.same((kube.list('Pod', 'erp-acme') as any[]).filter((p) => p.metadata.name.startsWith('erp-shop-')), [], 'no ERP pod')
  t.match(await backend.observe(spec), { state: 'stopped' })
  await backend.start(spec)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-shop')?.spec?.replicas, 1, 'start scales it up')
})
