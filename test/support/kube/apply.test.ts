/**
 * Server-side apply and the three patch types, through KubernetesObjectApi and the
 * generated clients: create on first apply, idempotence, updates, field ownership and
 * conflicts between managers, and server defaults that do not disturb a re-apply.
 */
import t from 'tap'
import { AppsV1Api, CoreV1Api, KubernetesObjectApi, PatchStrategy, setHeaderOptions, type KubernetesObject } from '@kubernetes/client-node'
import { fakeKubeApiServer, type FakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, mergePatch, namespaceManifest, rejection, serverSideApply } from './client-helpers.ts'

const NS = 'erp-acme'

async function setup (t: Parameters<typeof fakeKubeApiServer>[0]): Promise<{ kube: FakeKubeApiServer, client: KubernetesObjectApi, apply: (o: KubernetesObject, manager?: string, force?: boolean) => Promise<any> }> {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const client = KubernetesObjectApi.makeApiClient(kube.kubeConfig)
  const apply = (o: KubernetesObject, manager = 'erp-portal', force?: boolean): Promise<any> =>
    client.patch(structuredClone(o), undefined, undefined, manager, force, PatchStrategy.ServerSideApply)
  return { kube, client, apply }
}

t.test('apply creates, a second identical apply changes nothing, a changed one updates', async (t) => {
  const { kube, client, apply } = await setup(t)
  const manifest = deploymentManifest(NS, 'web')
  const created = await apply(manifest)
  t.equal(kube.requests.at(-1)?.status, 201, 'the first apply creates (201)')
  t.match(created.metadata, { generation: 1, managedFields: [{ manager: 'erp-portal', operation: 'Apply' }] })
  t.equal(created.spec.replicas, 1, 'replicas defaulted by the server')

  const settled = await client.read({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS } })
  const again = await apply(manifest)
  t.equal(again.metadata.resourceVersion, settled.metadata?.resourceVersion, 'identical apply: resourceVersion unchanged')
  t.equal(kube.requests.at(-1)?.status, 200)

  const relabelled = await apply({ ...manifest, metadata: { ...manifest.metadata, labels: { app: 'web', tier: 'erp' } } })
  t.not(relabelled.metadata.resourceVersion, again.metadata.resourceVersion, 'a label change bumps resourceVersion')
  t.equal(relabelled.metadata.generation, 1, 'but not generation (metadata is not spec)')

  const upgraded = await apply({ ...deploymentManifest(NS, 'web', { image: 'odoo:18.0' }), metadata: { name: 'web', namespace: NS, labels: { app: 'web', tier: 'erp' } } })
  t.equal(upgraded.metadata.generation, 2, 'a spec change bumps generation')
  t.equal(upgraded.spec.template.spec.containers[0].image, 'odoo:18.0')
  t.equal(upgraded.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent', 'pod-spec defaults are the server\'s, kept across applies')
  t.same(kube.internalErrors, [])
})

t.test('fields dropped from the applied configuration are removed, unless another manager owns them', async (t) => {
  const { kube, apply } = await setup(t)
  const secret = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: NS, labels }, stringData: { password: 'pw' } })
  await apply(secret({ tenant: 'acme', plan: 'pro' }))
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  await core.patchNamespacedSecret({ name: 'db', namespace: NS, body: { metadata: { labels: { audited: 'yes' } } }, fieldManager: 'auditor' }, mergePatch)

  const after = await apply(secret({ tenant: 'acme' }))
  t.same(after.metadata.labels, { tenant: 'acme', audited: 'yes' }, '`plan` removed; the auditor\'s label stays')
  t.same(after.data, { password: Buffer.from('pw').toString('base64') }, 'stringData is folded into data')
  t.equal(after.stringData, undefined)
  const managers = after.metadata.managedFields.map((m: { manager: string, operation: string }) => `${m.manager}/${m.operation}`)
  t.same(managers.sort(), ['auditor/Update', 'erp-portal/Apply'])
  const again = await apply(secret({ tenant: 'acme' }))
  t.equal(again.metadata.resourceVersion, after.metadata.resourceVersion, 're-applying stringData changes nothing')
})

t.test('list items dropped from the applied configuration go: a sidecar, a volume and its mount', async (t) => {
  const { apply } = await setup(t)
  const withSidecar = deploymentManifest(NS, 'web') as any
  withSidecar.spec.template.spec.containers.push({ name: 'sidecar', image: 'busybox:1.37' })
  withSidecar.spec.template.spec.volumes = [{ name: 'addons', persistentVolumeClaim: { claimName: 'addons-acme' } }]
  withSidecar.spec.template.spec.containers[0].volumeMounts = [{ name: 'addons', mountPath: '/mnt/extra-addons' }]
  const first = await apply(withSidecar)
  t.same(first.spec.template.spec.containers.map((c: { name: string }) => c.name), ['odoo', 'sidecar'])
  const second = await apply(deploymentManifest(NS, 'web'))
  t.same(second.spec.template.spec.containers.map((c: { name: string }) => c.name), ['odoo'])
  t.equal(second.spec.template.spec.volumes, undefined)
  t.equal(second.spec.template.spec.containers[0].volumeMounts, undefined)
  t.equal(second.spec.template.spec.containers[0].terminationMessagePath, '/dev/termination-log', 'server defaults of the kept container stay')
  t.equal(second.metadata.generation, 2)
})

t.test('a field another manager owns: 409 Conflict naming it, unless forced', async (t) => {
  const { kube, apply } = await setup(t)
  await apply(deploymentManifest(NS, 'web', { replicas: 1 }))
  const error = await rejection(apply(deploymentManifest(NS, 'web', { replicas: 3 }), 'autoscaler'))
  t.match(error, {
    code: 409,
    reason: 'Conflict',
    message: 'Apply failed with 1 conflict: conflict with "erp-portal" using apps/v1: .spec.replicas',
    details: { name: 'web', group: 'apps', kind: 'deployments', causes: [{ reason: 'FieldManagerConflict', field: '.spec.replicas' }] }
  })
  t.equal(kube.get('Deployment', NS, 'web')?.spec.replicas, 1, 'nothing changed')

  const forced = await apply(deploymentManifest(NS, 'web', { replicas: 3 }), 'autoscaler', true)
  t.equal(forced.spec.replicas, 3, 'force takes the field over')
  const owners = (forced.metadata.managedFields as Array<{ manager: string, fieldsV1: { 'f:spec'?: Record<string, unknown> } }>)
    .filter((m) => m.fieldsV1['f:spec']?.['f:replicas'] !== undefined).map((m) => m.manager)
  t.same(owners, ['autoscaler'], 'and ownership moves')

  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: NS, body: { spec: { replicas: 0 } }, fieldManager: 'ops-cli' }, mergePatch)
  t.match(await rejection(apply(deploymentManifest(NS, 'web', { replicas: 3 }), 'autoscaler')), { code: 409, message: /conflict with "ops-cli"/ },
    'an Update (here through the scale sub-resource) takes ownership too')
})

t.test('apply request errors: fieldManager, apiVersion/kind, name, stale resourceVersion; dry run', async (t) => {
  const { kube, client, apply } = await setup(t)
  const manifest = deploymentManifest(NS, 'web')
  t.match(await rejection(client.patch(structuredClone(manifest), undefined, undefined, undefined, undefined, PatchStrategy.ServerSideApply)), { code: 422, message: /fieldManager: Required value/ })
  const raw = (body: unknown, name = 'web') => fetch(`${kube.url}/apis/apps/v1/namespaces/${NS}/deployments/${name}?fieldManager=x`, {
    method: 'PATCH', headers: { authorization: `Bearer ${kube.token}`, 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(body)
  })
  t.equal((await raw({ metadata: { name: 'web' } })).status, 400, 'no apiVersion/kind: 400')
  t.equal((await raw(manifest, 'other')).status, 400, 'name differing from the URL: 400')
  const yaml = await fetch(`${kube.url}/api/v1/namespaces/${NS}/configmaps/conf?fieldManager=x`, {
    method: 'PATCH', headers: { authorization: `Bearer ${kube.token}`, 'content-type': 'application/apply-patch+yaml' }, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: "1"\n'
  })
  t.equal(yaml.status, 201, 'a YAML apply body works too')

  const dry = await client.patch(structuredClone(manifest), undefined, 'All', 'erp-portal', undefined, PatchStrategy.ServerSideApply)
  t.equal(dry.metadata?.name, 'web')
  t.equal(kube.get('Deployment', NS, 'web'), undefined, 'dryRun=All stores nothing')

  const created = await apply(manifest)
  const stale = { ...manifest, metadata: { ...manifest.metadata, resourceVersion: String(Number(created.metadata.resourceVersion) - 1) } }
  t.match(await rejection(apply(stale)), { code: 409, reason: 'Conflict', message: /the object has been modified/ })
})

t.test('apply through the generated clients (Content-Type set by options); Service defaults survive re-applies', async (t) => {
  const { kube } = await setup(t)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8069 }] } }
  const first = await core.patchNamespacedService({ name: 'web', namespace: NS, body: service, fieldManager: 'erp-portal' }, serverSideApply)
  t.match(first.spec, { type: 'ClusterIP', clusterIP: /^10\.96\./, sessionAffinity: 'None', ports: [{ protocol: 'TCP', port: 80 }] })
  const second = await core.patchNamespacedService({ name: 'web', namespace: NS, body: service, fieldManager: 'erp-portal' }, serverSideApply)
  t.equal(second.spec?.clusterIP, first.spec?.clusterIP, 'the allocated clusterIP stays')
  t.equal(second.metadata?.resourceVersion, first.metadata?.resourceVersion, 'nothing changed')
  const changed = await core.patchNamespacedService({ name: 'web', namespace: NS, body: { ...service, spec: { ...service.spec, ports: [{ name: 'http', port: 8080, targetPort: 8069 }] } }, fieldManager: 'erp-portal' }, serverSideApply)
  t.same(changed.spec?.ports?.map((p) => p.port), [8080], 'the port applied before is replaced, not kept alongside')
})

t.test('merge, strategic merge and JSON patches', async (t) => {
  const { kube, apply } = await setup(t)
  await apply(deploymentManifest(NS, 'web', { annotations: { keep: 'me' } }))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const merged = await apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: { metadata: { labels: { app: null, tier: 'erp' } } } }, mergePatch)
  t.same(merged.metadata?.labels, { tier: 'erp' }, 'merge patch: null deletes, the rest merges')

  const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)
  const withEnv = await apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: { spec: { template: { spec: { containers: [{ name: 'odoo', env: [{ name: 'DB_HOST', value: 'db' }] }] } } } } }, strategic)
  t.match(withEnv.spec?.template.spec?.containers, [{ name: 'odoo', image: 'odoo:17.0', env: [{ name: 'DB_HOST', value: 'db' }] }], 'strategic merge: containers merge by name')
  t.equal(withEnv.metadata?.generation, 2)

  const jsonPatch = await apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: [{ op: 'test', path: '/spec/replicas', value: 1 }, { op: 'replace', path: '/spec/replicas', value: 0 }] })
  t.equal(jsonPatch.spec?.replicas, 0, 'JSON patch (the generated client\'s default content type)')
  t.match(await rejection(apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: [{ op: 'test', path: '/spec/replicas', value: 5 }] })), { code: 422 })
  t.match(await rejection(apps.patchNamespacedDeployment({ name: 'nope', namespace: NS, body: { spec: {} } }, mergePatch)), { code: 404 }, 'patching a missing object (not apply): 404')
  t.same(kube.internalErrors, [])
})
