/**
 * On Kubernetes a sync is a Job in the tenant's namespace mounting its addons claim, against the
 * fake API server: what the Job is given (image, claim, the pinned address, the credential only
 * through a Secret), what its report records, and that the Job and its Secret are gone after.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { signup } from '../../../support/accounts.ts'
import { api, waitForSync, manifest } from '../../../support/addon-sources.ts'
import { build } from '../../../support/build.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { fakeKubeApiServer, type FakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'
import type { KubernetesBackend } from '../../../../provisioning/kubernetes/index.ts'

t.setTimeout(120_000)

const COMMIT = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'
const b64 = (text: string) => Buffer.from(text).toString('base64')

async function kubeApp (t: Test) {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 10 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const { app } = await build(t, {
    env: { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', ADDON_SOURCE_ALLOWED_HOSTS: 'localhost', ADDON_SOURCE_SYNC_RETRIES: 0, ADDON_SYNC_IMAGE: 'git-sync:test' }
  })
  const admin = await signup(app)
  const backend = app.instances.backends.get('kubernetes') as KubernetesBackend
  await backend.ensureTenant(admin.subdomain, admin.user.tenant_id, { instances: 1, memoryMb: 2048, cpuMillicores: 2000, storageGb: 10 })
  return { kube, app, admin, namespace: `erp-${admin.subdomain}`, call: api(app, admin.token) }
}

async function runningJob (kube: FakeKubeApiServer, namespace: string) {
  const job = await waitFor(async () => kube.list('Job', namespace).find((j) => String(j.metadata?.name).startsWith('addon-sync-')), { timeoutMs: 10_000, intervalMs: 20 })
  const name = String(job.metadata?.name)
  await waitFor(async () => kube.list('Pod', namespace).some((p) => String(p.metadata?.name).startsWith(`${name}-`) && p.status?.phase === 'Running'), { timeoutMs: 10_000, intervalMs: 20 })
  return { job, name }
}

t.test('a sync runs as a Job on the tenant\'s claim, pinned to the checked address, its token only in a Secret', async (t) => {
  const { kube, app, admin, namespace, call } = await kubeApp(t)
  const created = await call('POST', '/api/addon-sources', { repository_url: 'https://localhost:8443/acme/addons.git', branch: 'release/17', subpath: 'modules', token: 'tok-very-secret-42' })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const source = created.json.addon_source
  t.same(kube.list('Job', namespace), [], 'registering runs nothing')

  t.equal((await call('POST', `/api/addon-sources/${source.id}/sync`)).status, 202)
  const { job, name } = await runningJob(kube, namespace)
  const pod = job.spec.template.spec
  const container = pod.containers[0]
  t.equal(container.image, 'git-sync:test')
  t.same(pod.volumes, [{ name: 'volume-0', persistentVolumeClaim: { claimName: `addons-${admin.subdomain}`, readOnly: false } }], 'the tenant\'s addons claim')
  t.match(container.volumeMounts, [{ mountPath: '/addons' }])
  const env = Object.fromEntries(container.env.map((e: { name: string, value: string }) => [e.name, e.value]))
  t.match(env, { MODE: 'sync', SOURCE_ID: String(source.id), FETCH_URL: 'https://localhost:8443/acme/addons.git', BRANCH: 'release/17', SUBPATH: 'modules', ADDONS: '/addons' })
  t.match(env.PIN_RESOLVE, /^localhost:8443:(127\.0\.0\.1|\[::1\])$/, 'git is pinned to the address the portal checked')
  t.same(container.envFrom, [{ secretRef: { name } }], 'the credential comes from the Job\'s own Secret')
  t.notOk(JSON.stringify(job).includes('tok-very-secret-42'), 'the token is nowhere in the Job')
  const secret = await waitFor(async () => kube.get('Secret', namespace, name), { timeoutMs: 5000, intervalMs: 20 })
  t.equal(Buffer.from(String(secret?.data?.GIT_TOKEN), 'base64').toString('utf8'), 'tok-very-secret-42')
  t.match(secret?.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name, uid: job.metadata?.uid }], 'owned by the Job: collected with it if the portal dies mid-sync')
  t.match(job.spec, { backoffLimit: 0, activeDeadlineSeconds: 300 })

  kube.setPodLogs(namespace, name, `Cloning…\nADDON-SYNC ${JSON.stringify({ commit: COMMIT, modules: [{ name: 'sale_extra', manifest: b64(manifest('Sale Extra', 'More on sales')) }, { name: 'bad name', manifest: '' }], skipped: [] })}\n`)
  kube.completeJob(namespace, name)
  const synced = await waitForSync(call, source.id)
  t.match(synced, { state: 'synced', last_commit: COMMIT, modules: ['sale_extra'], error: null })
  const mine = (await app.modules.list(app.orm.em.fork(), {}, admin.user.tenant_id)).filter((m) => m.addon_source_id !== null)
  t.match(mine, [{ technical_name: 'sale_extra', name: 'Sale Extra', description: 'More on sales', addon_source_id: source.id }])
  await waitFor(async () => kube.get('Secret', namespace, name) === undefined && kube.get('Job', namespace, name) === undefined, { timeoutMs: 5000, intervalMs: 20 })
  t.pass('the Job and its Secret are deleted')
})

t.test('a failing Job records its reported error and `failed`; its Secret is deleted too', async (t) => {
  const { kube, app, namespace, call } = await kubeApp(t)
  const source = (await call('POST', '/api/addon-sources', { repository_url: 'https://localhost/big.git', branch: 'main', token: 'tok-2' })).json.addon_source
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  const { name } = await runningJob(kube, namespace)
  t.ok(await waitFor(async () => kube.get('Secret', namespace, name), { timeoutMs: 5000, intervalMs: 20 }))
  kube.setPodLogs(namespace, name, 'ADDON-SYNC {"error":"the repository has more than 50000 files"}\n')
  kube.failJob(namespace, name, { exitCode: 1 })
  const failed = await waitForSync(call, source.id)
  t.match(failed, { state: 'failed', error: 'the repository has more than 50000 files', last_commit: null, modules: [] })
  await waitFor(async () => kube.get('Secret', namespace, name) === undefined && kube.get('Job', namespace, name) === undefined, { timeoutMs: 5000, intervalMs: 20 })
  const activity = await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE target_id = $1 ORDER BY id', values: [String(source.id)] })
  t.same(activity.map((a) => a.type), ['addon_source.registered', 'addon_source.sync_requested', 'addon_source.sync_failed'])
})

t.test('deleting a source removes its files with a Job on the claim; a Job without a report fails the sync', async (t) => {
  const { kube, admin, namespace, call } = await kubeApp(t)
  const source = (await call('POST', '/api/addon-sources', { repository_url: 'https://localhost/a.git', branch: 'main' })).json.addon_source
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  const first = await runningJob(kube, namespace)
  t.same(first.job.spec.template.spec.containers[0].envFrom, [], 'no credential, no Secret')
  kube.completeJob(namespace, first.name)
  t.match(await waitForSync(call, source.id), { state: 'failed', error: 'the sync Job ended without a report' })

  t.equal((await call('DELETE', `/api/addon-sources/${source.id}`)).status, 200, 'answers without waiting for the cluster')
  const removal = kube.list('Job', namespace).find((j) => j.spec.template.spec.containers[0].env.some((e: { name: string, value: string }) => e.name === 'MODE' && e.value === 'remove'))
  t.match(removal?.spec, { ttlSecondsAfterFinished: 3600, template: { spec: { volumes: [{ persistentVolumeClaim: { claimName: `addons-${admin.subdomain}` } }] } } }, 'a Job on the claim removes the files; the cluster deletes it after')
  t.match(Object.fromEntries(removal?.spec.template.spec.containers[0].env.map((e: { name: string, value: string }) => [e.name, e.value])), { MODE: 'remove', SOURCE_ID: String(source.id) })
})

t.test('an ssh source: the deploy key only in the Secret, the host key the Job reports pinned and required by the next Job', async (t) => {
  const { kube, namespace, call } = await kubeApp(t)
  const deployKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n'
  const hostKey = `ssh-ed25519 ${'A'.repeat(68)}`
  const source = (await call('POST', '/api/addon-sources', { repository_url: 'ssh://git@localhost:2222/acme/addons.git', branch: 'main', deploy_key: deployKey })).json.addon_source
  const envOf = (job: Record<string, any>) => Object.fromEntries(job.spec.template.spec.containers[0].env.map((e: { name: string, value: string }) => [e.name, e.value]))

  await call('POST', `/api/addon-sources/${source.id}/sync`)
  const first = await runningJob(kube, namespace)
  t.match(envOf(first.job), { SSH_HOST_ALIAS: 'localhost', SSH_HOST_KEY: '', FETCH_URL: /^ssh:\/\/git@(127\.0\.0\.1|\[::1\]):2222\/acme\/addons\.git$/ }, 'ssh to the checked address, no key pinned yet')
  t.notOk(JSON.stringify(first.job).includes('b3BlbnNzaC1rZXktdjEA'), 'the deploy key is nowhere in the Job')
  const secret = await waitFor(async () => kube.get('Secret', namespace, first.name), { timeoutMs: 5000, intervalMs: 20 })
  t.equal(Buffer.from(String(secret?.data?.DEPLOY_KEY), 'base64').toString('utf8'), deployKey)
  kube.setPodLogs(namespace, first.name, `ADDON-SYNC ${JSON.stringify({ commit: COMMIT, modules: [], skipped: [], host_key: hostKey })}\n`)
  kube.completeJob(namespace, first.name)
  t.match(await waitForSync(call, source.id), { state: 'synced', ssh_host_key: hostKey }, 'the key the Job accepted is pinned')
  await waitFor(async () => kube.get('Job', namespace, first.name) === undefined, { timeoutMs: 5000, intervalMs: 20 })

  await call('POST', `/api/addon-sources/${source.id}/sync`)
  const second = await runningJob(kube, namespace)
  t.match(envOf(second.job), { SSH_HOST_KEY: hostKey }, 'the next Job requires the pinned key')
  kube.setPodLogs(namespace, second.name, 'ADDON-SYNC {"error":"Host key verification failed. fatal: Could not read from remote repository. "}\n')
  kube.failJob(namespace, second.name, { exitCode: 1 })
  t.match(await waitForSync(call, source.id), { state: 'failed', ssh_host_key: hostKey, error: /^the ssh host key of localhost is not the one pinned for this source/ })
})
