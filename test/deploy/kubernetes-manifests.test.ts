/** deploy/kubernetes renders with `kubectl kustomize`, every object is valid for its kind, and the pieces fit together. */
import t from 'tap'
import { kustomize, schemaProblems, type RenderedObject } from '../support/kustomize.ts'
import { IN_FLIGHT_GRACE_MS, SHUTDOWN_GRACE_MS } from '../../lib/shutdown-budget.ts'

const find = (objects: RenderedObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)

for (const directory of ['deploy/kubernetes/base', 'deploy/kubernetes/overlays/example', 'deploy/kubernetes/tenant']) {
  t.test(`${directory} renders and every object is valid for its kind`, async (t) => {
    const objects = await kustomize(directory)
    t.ok(objects.length > 0, `${objects.length} objects`)
    for (const object of objects) t.same(await schemaProblems(object), [], `${object.kind} ${object.metadata.name}`)
  })
}

t.test('the validation catches a broken object (control)', async (t) => {
  const problems = await schemaProblems({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template: {} } })
  t.match(problems.join('\n'), /selector/)
})

t.test('the example installation: two replicas of each process, probes, disruption budgets, autoscaling, no inlined secrets', async (t) => {
  const objects = await kustomize('deploy/kubernetes/overlays/example')
  t.ok(objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding').every((o) => o.metadata.namespace === 'erp-portal'), 'everything namespaced lands in the overlay\'s namespace')
  t.equal(objects.filter((o) => o.kind === 'Secret').length, 0, 'no Secret object: secrets are referenced, created out of band')

  for (const [name, component] of [['erp-portal', 'portal'], ['erp-auth-server', 'auth-server']] as const) {
    const deployment = find(objects, 'Deployment', name) as RenderedObject & { spec: { replicas: number, selector: { matchLabels: Record<string, string> }, template: { spec: { containers: Array<Record<string, any>>, securityContext: Record<string, unknown> } } } }
    t.ok(deployment, `Deployment ${name}`)
    t.equal(deployment.spec.replicas, 2, `${name}: two replicas`)
    t.equal(deployment.spec.selector.matchLabels['app.kubernetes.io/component'], component)
    const [container] = deployment.spec.template.spec.containers
    t.equal(container?.image, 'registry.example.com/erp-portal:0.1.0', `${name}: the overlay's image`)
    t.equal(container?.readinessProbe?.httpGet?.path, '/health/ready')
    t.equal(container?.livenessProbe?.httpGet?.path, '/health/live')
    t.ok(container?.resources?.requests?.cpu && container?.resources?.limits?.memory, `${name}: resources`)
    t.equal(container?.securityContext?.readOnlyRootFilesystem, true, `${name}: read-only root filesystem`)
    t.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true, `${name}: not root`)
    t.match(container?.envFrom, [{ configMapRef: { name: /^erp-portal-config-\w+$/ } }, { secretRef: { name: 'erp-portal-secrets' } }], `${name}: settings by reference (the generated ConfigMap's hashed name)`)
    t.ok(find(objects, 'ConfigMap', String(container?.envFrom?.[0]?.configMapRef?.name)), `${name}: the ConfigMap it names exists`)
    const env = (container?.env ?? []) as Array<{ name: string, value?: string, valueFrom?: { secretKeyRef?: { name: string } } }>
    t.same(env.filter((entry) => /SECRET|PASSWORD|TOKEN/.test(entry.name) && entry.valueFrom?.secretKeyRef?.name !== 'erp-portal-secrets'), [], `${name}: no secret value inlined`)
    t.notOk(JSON.stringify(env.map((entry) => entry.value ?? '')).match(/SECRET|PASSWORD|TOKEN/), `${name}: nor one in a value`)
    const setting = (key: string) => env.find((entry) => entry.name === key)
    const grace = (deployment.spec.template.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30
    // The portal also stops its job workers and the rest (lib/shutdown-budget.ts); the auth server only lets requests finish.
    const afterDrain = (component === 'portal' ? SHUTDOWN_GRACE_MS : IN_FLIGHT_GRACE_MS) / 1000
    t.ok(Number(setting('SHUTDOWN_DELAY_SECONDS')?.value) + afterDrain < grace, `${name}: drain delay + ${afterDrain} s of shutdown fit in terminationGracePeriodSeconds (${grace})`)
    t.equal(setting('METRICS_TOKEN')?.valueFrom?.secretKeyRef?.name, 'erp-portal-secrets', `${name}: the scrape token from the Secret`)
    const annotations = (deployment.spec.template as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations ?? {}
    const scrapePort = Number(annotations['prometheus.io/port'])
    t.ok((container?.ports as Array<{ containerPort: number }>).some((port) => port.containerPort === scrapePort), `${name}: the scrape annotation names a declared port`)
    if (component === 'portal') t.equal(Number(setting('METRICS_PORT')?.value), scrapePort, 'the portal serves /metrics on it')

    const budget = find(objects, 'PodDisruptionBudget', name) as { spec: { selector: { matchLabels: Record<string, string> } } } | undefined
    t.same(budget?.spec.selector.matchLabels, deployment.spec.selector.matchLabels, `${name}: the disruption budget selects its pods`)
    const autoscaler = find(objects, 'HorizontalPodAutoscaler', name) as { spec: { scaleTargetRef: { name: string }, minReplicas: number, metrics: Array<{ resource: { name: string } }> } } | undefined
    t.equal(autoscaler?.spec.scaleTargetRef.name, name, `${name}: autoscaled`)
    t.equal(autoscaler?.spec.minReplicas, 2)
    t.equal(autoscaler?.spec.metrics[0]?.resource.name, 'cpu')

    const service = find(objects, 'Service', name) as { spec: { selector: Record<string, string> } } | undefined
    t.same(service?.spec.selector, deployment.spec.selector.matchLabels, `${name}: the Service selects the pods`)
  }

  const ingress = find(objects, 'Ingress', 'erp-portal') as { spec: { rules: Array<{ host: string, http: { paths: Array<{ path: string, backend: { service: { name: string } } }> } }> } } | undefined
  t.equal(ingress?.spec.rules[0]?.host, 'portal.example.com', 'the overlay\'s host')
  t.same(ingress?.spec.rules[0]?.http.paths.map((p) => [p.path, p.backend.service.name]), [['/', 'erp-portal']], 'the whole origin (/oauth and /.well-known included) goes to the portal')

  const migrate = find(objects, 'Job', 'erp-portal-migrate') as { spec: { template: { spec: { containers: Array<{ command: string[] }> } } } } | undefined
  t.same(migrate?.spec.template.spec.containers[0]?.command, ['node', 'dist/database/cli.js', 'migrate'], 'the migration Job runs the migration CLI of the same image')

  const binding = find(objects, 'ClusterRoleBinding', 'erp-portal-provisioner') as { subjects: Array<{ name: string, namespace: string }> } | undefined
  t.same(binding?.subjects, [{ kind: 'ServiceAccount', name: 'erp-portal', namespace: 'erp-portal' }], 'the role is bound to the portal\'s service account in the overlay\'s namespace')
  const portal = find(objects, 'Deployment', 'erp-portal') as { spec: { template: { spec: { serviceAccountName: string } } } } | undefined
  t.equal(portal?.spec.template.spec.serviceAccountName, 'erp-portal')
})
