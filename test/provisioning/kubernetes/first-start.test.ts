/**
 * An instance's first start on Kubernetes: odoo.conf (master password, no database manager) as a
 * Secret mounted at /etc/odoo, and the database initialisation as a Job that runs to its end
 * before the Deployment exists; a later provision runs no Job; a failed Job fails the provision.
 */
import t from 'tap'
import { setup, instanceSpec, QUOTA, TENANT_ID } from './setup.ts'

const ERP = { masterPassword: 'generated-master-password-0123456789', initialise: true }

async function untilJob (kube: Awaited<ReturnType<typeof setup>>['kube'], name: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000
  for (;;) {
    const job = kube.get('Job', 'erp-acme', name)
    if (job !== undefined && (job as { status?: { active?: number } }).status?.active === 1) return job as Record<string, unknown>
    if (Date.now() > deadline) throw new Error(`no running Job ${name}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('the initialisation Job runs before the Deployment, with the database Secret and the claims; the config Secret is mounted', async (t) => {
  const { kube, backend } = await setup(t, {}, { initPollMs: 10 })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const spec = instanceSpec({ subdomain: 'first', erp: ERP })
  const provisioning = backend.provision(spec)
  const job = await untilJob(kube, 'erp-first-init')
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-first'), undefined, 'no Deployment while the database is initialised')
  const container = (job as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } }).spec.template.spec.containers[0]
  t.same(container?.command, ['/entrypoint.sh', 'odoo', '-d', 'erp_first', '-i', 'base', '--without-demo=all', '--stop-after-init'])
  t.same(container?.envFrom, [{ secretRef: { name: 'erp-first-db' } }], 'the database connection as the server gets it')
  t.match(container?.volumeMounts, [{ mountPath: '/var/lib/odoo' }, { mountPath: '/mnt/extra-addons', readOnly: true }])
  t.equal(kube.erp.initialised('erp_first'), false, 'the database is empty while the Job runs')
  kube.completeJob('erp-acme', 'erp-first-init')
  await provisioning
  t.equal(kube.get('Job', 'erp-acme', 'erp-first-init'), undefined, 'the finished Job is deleted')
  t.equal(kube.erp.initialised('erp_first'), true, 'the Job filled the database the config names')
  const deadline = Date.now() + 5000
  while ((kube.get('Deployment', 'erp-acme', 'erp-first') as { status?: { readyReplicas?: number } })?.status?.readyReplicas !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal((kube.get('Deployment', 'erp-acme', 'erp-first') as { status?: { readyReplicas?: number } })?.status?.readyReplicas, 1, 'so its ERP pod passes the readiness probe on /web/health')

  const secret = kube.get('Secret', 'erp-acme', 'erp-first-config') as { data: Record<string, string> }
  const conf = Buffer.from(secret.data['odoo.conf'] ?? '', 'base64').toString('utf8')
  t.match(conf, `admin_passwd = ${ERP.masterPassword}\n`)
  t.match(conf, 'list_db = False\n')
  const pod = (kube.get('Deployment', 'erp-acme', 'erp-first') as { spec: { template: { spec: { containers: Array<{ volumeMounts: unknown[] }>, volumes: unknown[] } } } }).spec.template.spec
  t.match(pod.containers[0]?.volumeMounts, [{}, {}, { name: 'config', mountPath: '/etc/odoo', readOnly: true }])
  t.match(pod.volumes, [{}, {}, { name: 'config', secret: { secretName: 'erp-first-config' } }])

  await backend.provision({ ...spec, erp: { ...ERP, initialise: false } })
  t.equal(kube.get('Job', 'erp-acme', 'erp-first-init'), undefined, 'a later provision runs no Job')
  await backend.remove(spec)
  t.equal(kube.get('Secret', 'erp-acme', 'erp-first-config'), undefined, 'remove deletes the config Secret')
  t.same(kube.internalErrors, [])
})

t.test('a failed initialisation fails the provision with the Job\'s reason and leaves no Deployment; the retry starts a new Job', async (t) => {
  const { kube, backend } = await setup(t, {}, { initPollMs: 10 })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const spec = instanceSpec({ subdomain: 'broken', erp: ERP })
  const provisioning = backend.provision(spec)
  await untilJob(kube, 'erp-broken-init')
  kube.failJob('erp-acme', 'erp-broken-init', { exitCode: 1 })
  await t.rejects(provisioning, /database initialisation Job erp-acme\/erp-broken-init failed/)
  t.equal(kube.get('Deployment', 'erp-acme', 'erp-broken'), undefined)

  const retry = backend.provision(spec)
  await untilJob(kube, 'erp-broken-init')
  kube.completeJob('erp-acme', 'erp-broken-init')
  await retry
  t.not(kube.get('Deployment', 'erp-acme', 'erp-broken'), undefined, 'the retry got through')
})
