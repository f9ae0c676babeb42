/**
 * The ClusterRole the portal runs under (deploy/kubernetes/base/provisioner-role.yaml) grants
 * exactly what the Kubernetes backend uses: a whole instance life cycle runs against the fake API
 * server, every request is turned into the RBAC permission the API server would check, and the
 * role must grant each one and nothing else.
 */
import t from 'tap'
import { instanceSpec, QUOTA, setup, TENANT_ID, waitForState } from '../provisioning/kubernetes/setup.ts'
import { kustomize } from '../support/kustomize.ts'
import { waitFor } from '../support/kube/client-helpers.ts'
import { createKubeAddonStorage } from '../../plugins/app/addon-sources/kube-addon-storage.ts'
import { grantedPermissions, missingGrants, neededPermissions, type PolicyRule } from '../support/kube/rbac.ts'
import { erpUrl, kubeAuthenticatedFetch } from '../../provisioning/kubernetes/erp-access.ts'

async function shippedRules (): Promise<PolicyRule[]> {
  const role = (await kustomize('deploy/kubernetes/base')).find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'erp-portal-provisioner')
  if (role === undefined) throw new Error('no ClusterRole erp-portal-provisioner in deploy/kubernetes/base')
  return (role as unknown as { rules: PolicyRule[] }).rules
}

/** An addon-source sync with a credential (its Job and the Job's Secret), and a removal. */
async function addonSync (kube: Awaited<ReturnType<typeof setup>>['kube'], backend: Awaited<ReturnType<typeof setup>>['backend']): Promise<void> {
  const storage = createKubeAddonStorage({ jobs: () => backend.jobs, image: 'git-sync:test', timeoutMs: 5000, intervalMs: 10 })
  const syncing = storage.sync({
    tenantSubdomain: 'acme', sourceId: 1, url: new URL('https://git.example.com/a.git'), branch: 'main', subpath: null,
    address: { address: '203.0.113.5', family: 4 }, credential: { kind: 'token', secret: 't' }, maxBytes: 1024, maxFiles: 10, signal: AbortSignal.timeout(5000)
  })
  const name = await waitFor(async () => kube.list('Job', 'erp-acme').map((j) => String(j.metadata?.name)).find((n) => n.startsWith('addon-sync-1-')))
  await waitFor(async () => kube.list('Pod', 'erp-acme').some((p) => String(p.metadata?.name).startsWith(name) && p.status?.phase === 'Running'))
  kube.setPodLogs('erp-acme', name, `ADDON-SYNC {"commit":"${'a'.repeat(40)}","modules":[],"skipped":[]}\n`)
  kube.completeJob('erp-acme', name)
  await syncing
  await storage.remove('acme', 1)
}

/** Every backend operation, the paths that only run when something is wrong included. */
async function lifeCycleRequests (t: Parameters<typeof setup>[0]) {
  const { kube, backend } = await setup(t, { readyDelayMs: 50 })
  const spec = instanceSpec()
  await backend.check()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  await backend.observeAll(['acme'])
  // The ERP reached through the API server's Service proxy (KUBE_ERP_ACCESS=api-proxy): one JSON-RPC call.
  const rpc = await kubeAuthenticatedFetch(kube.kubeConfig)(new URL(`${erpUrl('api-proxy', kube.url, { tenantSubdomain: 'acme', subdomain: spec.subdomain })}jsonrpc`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'call', id: 1, params: { service: 'common', method: 'authenticate', args: ['erp', 'admin', 'admin', {}] } }),
    signal: AbortSignal.timeout(5000)
  })
  t.equal(rpc.status, 200, 'the ERP answered through the proxy')
  await backend.readUsage(spec, { running: true, timeoutMs: 2000 })
  await backend.readLogs?.(spec, { tail: 10 })
  const follow = await backend.followLogs?.(spec, undefined, { line: () => {}, end: () => {} })
  follow?.stop()
  kube.holdNotReady('erp-acme', 'erp-shop', { reason: 'CrashLoopBackOff' })
  await backend.restart(spec)
  await backend.observe(spec)
  kube.releaseHold('erp-acme', 'erp-shop')
  await backend.jobs.create({ namespace: 'erp-acme', name: 'one-off', image: 'busybox:1', command: ['true'], resources: { limits: { memory: '64Mi', cpu: '100m' } } })
  kube.completeJob('erp-acme', 'one-off')
  await backend.jobs.wait('erp-acme', 'one-off', { timeoutMs: 2000, intervalMs: 10 })
  await backend.jobs.logs('erp-acme', 'one-off')
  await backend.jobs.remove('erp-acme', 'one-off')
  await addonSync(kube, backend)
  // A download's reader pod (simulated: nothing answers behind the pod proxy, which is an error) and the sweep of readers.
  await backend.clusterBackups.openArchive(spec, `kubernetes:backups-acme/${spec.instanceUid}/backup-1.tar`, { size: 1, backupId: 1 }).then(() => { throw new Error('nothing answers: the read must fail') }, () => {})
  await backend.clusterBackups.sweep?.()
  await backend.stop(spec)
  await backend.start(spec)
  await backend.remove(spec)
  await backend.removeTenant('acme')
  t.same(kube.internalErrors, [])
  return kube.requests
}

t.test('the role grants every call of the life cycle, and nothing the code does not use', async (t) => {
  const needed = neededPermissions(await lifeCycleRequests(t))
  t.ok(needed.length > 10, `${needed.length} permissions used:\n${needed.join('\n')}`)
  const rules = await shippedRules()
  t.same(missingGrants(rules, needed), [], 'every call is allowed')
  t.same(grantedPermissions(rules).filter((line) => !needed.includes(line)), [], 'no grant goes unused (least privilege)')
  t.notOk(JSON.stringify(rules).includes('"*"'), 'no wildcards')
})

t.test('a call the role does not grant is reported (control)', async (t) => {
  const rules = await shippedRules()
  const withoutDeploymentDeletes = rules.map((rule) => rule.resources?.includes('deployments') === true ? { ...rule, verbs: rule.verbs?.filter((verb) => verb !== 'delete') } : rule)
  t.same(missingGrants(withoutDeploymentDeletes, ['delete apps/deployments', 'get apps/deployments']), ['delete apps/deployments'])
  t.same(neededPermissions([
    { method: 'PATCH', path: '/api/v1/namespaces/erp-x/secrets/s', query: {}, contentType: 'application/apply-patch+yaml' },
    { method: 'GET', path: '/api/v1/namespaces/erp-x/pods/p/log', query: {}, contentType: '' },
    { method: 'GET', path: '/apis/apps/v1/namespaces/erp-x/deployments', query: { watch: 'true' }, contentType: '' },
    { method: 'DELETE', path: '/api/v1/namespaces/erp-x/pods', query: {}, contentType: '' }
  ]), ['create core/secrets', 'deletecollection core/pods', 'get core/pods/log', 'patch core/secrets', 'watch apps/deployments'], 'apply needs create too; sub-resources, watches and collections are their own permissions')
})
