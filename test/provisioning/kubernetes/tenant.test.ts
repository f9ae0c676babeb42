/** ensureTenant: the namespace, its quota and the shared addons claim; removeTenant. */
import t from 'tap'
import { createKubernetesBackend } from '../../../provisioning/kubernetes/index.ts'
import { QUOTA, setup, TENANT_ID, versions } from './setup.ts'

const TENANT_OBJECTS: Array<[string, string | undefined, string]> = [
  ['Namespace', undefined, 'erp-acme'],
  ['ResourceQuota', 'erp-acme', 'erp-quota'],
  ['PersistentVolumeClaim', 'erp-acme', 'addons-acme']
]

t.test('creates the namespace with its labels, the quota from TenantQuota and the ReadWriteMany addons claim', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, { instances: 3, memoryMb: 6144, cpuMillicores: 2500, storageGb: 40 })

  t.match(kube.get('Namespace', undefined, 'erp-acme')?.metadata?.labels, {
    'app.kubernetes.io/managed-by': 'erp-portal', 'erp.portal/tenant-id': TENANT_ID, 'erp.portal/tenant': 'acme'
  })
  const quota = kube.get('ResourceQuota', 'erp-acme', 'erp-quota')
  t.same(quota?.spec?.hard, {
    'limits.memory': '6784Mi', // 6 GiB + 512 MiB for one backup Job + 2 × 64 MiB for two download readers
    'limits.cpu': '3400m', // 2500m + 500m for one backup Job + 2 × 200m for two download readers
    'requests.storage': '65Gi', // 40 for the instances + 5 for the addons claim + 20 for the backup claim
    'count/deployments.apps': '3'
  })
  const claim = kube.get('PersistentVolumeClaim', 'erp-acme', 'addons-acme')
  t.same(claim?.spec?.accessModes, ['ReadWriteMany'])
  t.equal(claim?.spec?.resources?.requests?.storage, '5Gi')
  t.equal(claim?.spec?.storageClassName, 'standard', 'the cluster default when no storage class is configured')
  t.equal(claim?.metadata?.labels?.['erp.portal/tenant'], 'acme')
  for (const [kind, ns, name] of TENANT_OBJECTS) {
    t.match(kube.get(kind, ns, name)?.metadata?.managedFields, [{ manager: 'erp-portal', operation: 'Apply' }], `${kind} applied by erp-portal`)
  }
  t.same(kube.internalErrors, [])
})

t.test('a second ensureTenant changes nothing; a new quota is applied', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const before = versions(kube, TENANT_OBJECTS)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  t.same(versions(kube, TENANT_OBJECTS), before, 'same resourceVersions')
  t.equal(kube.list('PersistentVolumeClaim', 'erp-acme').length, 1)
  t.equal(kube.list('ResourceQuota', 'erp-acme').length, 1)

  await backend.ensureTenant('acme', TENANT_ID, { ...QUOTA, instances: 5, memoryMb: 1536 })
  t.match(kube.get('ResourceQuota', 'erp-acme', 'erp-quota')?.spec?.hard, { 'count/deployments.apps': '5', 'limits.memory': '2176Mi' }) // 1536 MiB + 512 for a backup Job + 128 for two download readers
  t.same(kube.internalErrors, [])
})

t.test('storage classes and the addons size come from the options; the claim grows but never shrinks', async (t) => {
  const { kube } = await setup(t)
  const withOptions = (addonsStorageGb: number) => createKubernetesBackend({ kubeConfig: kube.kubeConfig, storageClass: 'fast-rwo', addonsStorageClass: 'nfs-rwx', addonsStorageGb })
  await withOptions(5).ensureTenant('acme', TENANT_ID, QUOTA)
  const claim = () => kube.get('PersistentVolumeClaim', 'erp-acme', 'addons-acme')
  t.equal(claim()?.spec?.storageClassName, 'nfs-rwx')

  await withOptions(8).ensureTenant('acme', TENANT_ID, QUOTA)
  t.equal(claim()?.spec?.resources?.requests?.storage, '8Gi', 'grown')
  t.equal(kube.get('ResourceQuota', 'erp-acme', 'erp-quota')?.spec?.hard?.['requests.storage'], '78Gi')

  await withOptions(3).ensureTenant('acme', TENANT_ID, QUOTA)
  t.equal(claim()?.spec?.resources?.requests?.storage, '8Gi', 'a claim cannot shrink: left as it is, no error')

  const other = createKubernetesBackend({ kubeConfig: kube.kubeConfig, addonsStorageClass: 'changed-later', addonsStorageGb: 8 })
  await other.ensureTenant('acme', TENANT_ID, QUOTA)
  t.equal(claim()?.spec?.storageClassName, 'nfs-rwx', 'a changed storage class applies to new claims only (the spec is immutable)')
  t.same(kube.internalErrors, [])
})

t.test('removeTenant deletes the namespace (and so everything in it); twice is fine', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.removeTenant('acme')
  t.equal(kube.get('Namespace', undefined, 'erp-acme'), undefined)
  t.same(kube.list('PersistentVolumeClaim', 'erp-acme'), [])
  await backend.removeTenant('acme')
  t.same(kube.internalErrors, [])
})
