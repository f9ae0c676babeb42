/** loadKubeConfig: a kubeconfig file, the in-cluster service account, or nothing (not configured). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createKubernetesBackend, loadKubeConfig } from '../../../provisioning/kubernetes/index.ts'
import { fakeKubeApiServer } from '../../support/kube/fake-api-server.ts'

function withEnv (t: Test, name: string, value: string | undefined): void {
  const before = process.env[name]
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
  t.teardown(() => { if (before === undefined) delete process.env[name]; else process.env[name] = before })
}

t.test('a kubeconfig file: the backend works with what it loads', async (t) => {
  const kube = await fakeKubeApiServer(t)
  const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'config')
  await writeFile(path, kube.kubeconfigText)
  const kubeConfig = loadKubeConfig(path)
  t.equal(kubeConfig?.getCurrentCluster()?.server, kube.url)
  if (kubeConfig === undefined) return
  await createKubernetesBackend({ kubeConfig }).check()
  t.throws(() => loadKubeConfig(join(dir, 'missing')), /ENOENT/, 'an unreadable file is a startup error, not "not configured"')
})

t.test('no path and not in a cluster: undefined (not configured)', async (t) => {
  withEnv(t, 'KUBERNETES_SERVICE_HOST', undefined)
  t.equal(loadKubeConfig(), undefined)
  t.equal(loadKubeConfig(''), undefined)
})

t.test('in a cluster: the service account and the API service address', async (t) => {
  withEnv(t, 'KUBERNETES_SERVICE_HOST', '10.96.0.1')
  withEnv(t, 'KUBERNETES_SERVICE_PORT', '443')
  const kubeConfig = loadKubeConfig()
  t.equal(kubeConfig?.getCurrentCluster()?.server, 'https://10.96.0.1:443')
  t.match(kubeConfig?.getCurrentUser()?.authProvider, { name: 'tokenFile', config: { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' } })
})
