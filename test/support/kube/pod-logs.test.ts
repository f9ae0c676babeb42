/** Pod logs through readNamespacedPodLog: seeded text, tailLines, containers, and the kubelet's refusals. */
import t from 'tap'
import { PassThrough } from 'node:stream'
import { AppsV1Api, CoreV1Api, Log } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, rejection, serverSideApply } from './client-helpers.ts'

const NS = 'erp-acme'
const LOG = 'INFO odoo: starting\nINFO odoo: loading modules\nERROR odoo: addon foo failed\nINFO odoo: ready\n'

t.test('logs of a deployment\'s pod: all of it, or the last lines', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 0 })
  kube.seed(namespaceManifest(NS))
  kube.seed(deploymentManifest(NS, 'web', { replicas: 2 }))
  kube.setPodLogs(NS, 'web', LOG)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const pods = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=web' })).items
  t.equal(pods.length, 2, 'one pod per replica')
  const name = pods[0]?.metadata?.name ?? ''

  t.equal(await core.readNamespacedPodLog({ name, namespace: NS }), LOG)
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, tailLines: 2 }), 'ERROR odoo: addon foo failed\nINFO odoo: ready\n')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, tailLines: 0 }), '')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, container: 'odoo', limitBytes: 4 }), 'INFO')
  kube.setPodLogs(NS, name, 'only this pod\n')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS }), 'only this pod\n', 'a pod\'s own logs win over its deployment\'s')
  t.equal(await core.readNamespacedPodLog({ name: pods[1]?.metadata?.name ?? '', namespace: NS }), LOG)

  t.match(await rejection(core.readNamespacedPodLog({ name, namespace: NS, container: 'nginx' })), { code: 400, message: `container nginx is not valid for pod ${name}` })
  t.match(await rejection(core.readNamespacedPodLog({ name: 'web-0', namespace: NS })), { code: 404, message: 'pods "web-0" not found' })
  t.same(kube.internalErrors, [])
})

t.test('a pod still starting has no logs yet (400); several containers need `container`', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 60_000 })
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const manifest = deploymentManifest(NS, 'web') as any
  manifest.spec.template.spec.containers.push({ name: 'proxy', image: 'nginx:1.27' })
  await apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: manifest, fieldManager: 'erp-portal' }, serverSideApply)
  kube.setPodLogs(NS, 'web', 'proxy up\n', { container: 'proxy' })
  kube.setPodLogs(NS, 'web', 'odoo up\n', { container: 'odoo' })
  const [pod] = (await core.listNamespacedPod({ namespace: NS })).items
  const name = pod?.metadata?.name ?? ''
  t.match(await rejection(core.readNamespacedPodLog({ name, namespace: NS, container: 'odoo' })), { code: 400, message: `container "odoo" in pod "${name}" is waiting to start: ContainerCreating` })

  kube.setReady(NS, 'web')
  t.match(await rejection(core.readNamespacedPodLog({ name, namespace: NS })), { code: 400, message: `a container name must be specified for pod ${name}, choose one of: [odoo proxy]` })
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, container: 'proxy' }), 'proxy up\n')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, container: 'odoo' }), 'odoo up\n')
})

t.test('timestamps, sinceTime, and follow=true carrying the lines written later', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 0 })
  kube.seed(namespaceManifest(NS))
  kube.seed(deploymentManifest(NS, 'web'))
  kube.setPodLogs(NS, 'web', 'first\nsecond\n')
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const [pod] = (await core.listNamespacedPod({ namespace: NS })).items
  const name = pod?.metadata?.name ?? ''

  const stamped = (await core.readNamespacedPodLog({ name, namespace: NS, timestamps: true })).split('\n').filter(Boolean)
  t.equal(stamped.length, 2)
  t.match(stamped[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z first$/, 'RFC 3339 to the nanosecond, a space, the line')
  t.ok(stamped[0]! < stamped[1]!, 'times increase')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, sinceSeconds: 60 }), 'first\nsecond\n', 'sinceSeconds: the last minute')
  t.match(await rejection(core.readNamespacedPodLog({ name, namespace: NS, sinceSeconds: 0 })), { code: 400 })
  const read = async (sinceTime: string): Promise<string> => {
    const out: string[] = []
    const sink = new PassThrough()
    sink.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')))
    await new Log(kube.kubeConfig).log(NS, name, 'odoo', sink, { sinceTime })
    await new Promise((resolve) => sink.on('end', resolve))
    return out.join('')
  }
  t.equal(await read(new Date(Date.now() + 5000).toISOString().slice(0, 19) + 'Z'), '', 'sinceTime: nothing since a later time')
  t.equal(await read(new Date(Date.now() - 5000).toISOString().slice(0, 19) + 'Z'), 'first\nsecond\n', 'sinceTime: all since an earlier one')

  const chunks: string[] = []
  const sink = new PassThrough()
  sink.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')))
  sink.on('pipe', (source) => source.on('error', () => {})) // the abort below ends the response with an AbortError
  const controller = await new Log(kube.kubeConfig).log(NS, name, 'odoo', sink, { follow: true, timestamps: true })
  const text = async (): Promise<string> => {
    for (let i = 0; i < 50 && !chunks.join('').includes('third'); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    return chunks.join('')
  }
  t.equal(kube.podLogFollowers(), 1, 'the follow stays open')
  kube.appendPodLog(NS, 'web', 'third')
  const followed = (await text()).split('\n').filter(Boolean)
  t.same(followed.map((line) => line.slice(line.indexOf(' ') + 1)), ['first', 'second', 'third'], 'what was there, then the appended line')
  controller.abort()
  for (let i = 0; i < 50 && kube.podLogFollowers() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(kube.podLogFollowers(), 0, 'closed with the client')
  t.equal(await core.readNamespacedPodLog({ name, namespace: NS, tailLines: 1 }), 'third\n', 'appended lines are part of the log')
  t.same(kube.internalErrors, [])
})
