/**
 * The pod proxy subresource against a pod the fake runs for real (busybox httpd on the local Docker
 * engine, its claim a host folder): answers as the API server does (401, 404, 400 while Pending,
 * 503 where nothing listens), forwards Range and streams the container's answer back unchanged.
 */
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { namespaceManifest, waitFor } from './client-helpers.ts'
import { kubeAuthenticatedStream } from '../../../provisioning/kubernetes/erp-access.ts'
import { requireDockerOrSkipLoudly } from '../docker/engine.ts'
import { backupReaderTestImage } from '../backup-reader-image.ts'

const NS = 'erp-acme'

const readAll = async (answer: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = []
  for await (const chunk of answer) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const httpdPod = (image: string): V1Pod => ({
  metadata: { generateName: 'reader-', labels: { app: 'reader' } },
  spec: {
    restartPolicy: 'Never',
    securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534 },
    containers: [{
      name: 'httpd', image, command: ['httpd', '-f', '-p', '8080', '-h', '/srv'], ports: [{ containerPort: 8080 }],
      readinessProbe: { tcpSocket: { port: 8080 } },
      volumeMounts: [{ name: 'files', mountPath: '/srv', subPath: 'inner', readOnly: true }],
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }
    }],
    volumes: [{ name: 'files', persistentVolumeClaim: { claimName: 'files', readOnly: true } }]
  }
})

const docker = await requireDockerOrSkipLoudly(t)
docker.test('the pod proxy reaches the container the pod runs, Range and all', async (t) => {
  const image = await backupReaderTestImage()
  const folder = mkdtempSync(join(tmpdir(), 'fake-claim-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  chmodSync(folder, 0o755)
  mkdirSync(join(folder, 'inner'), { mode: 0o755 })
  const content = Buffer.alloc(3 * 2 ** 20 + 17, 0).map((_, i) => (i * 7) % 251)
  writeFileSync(join(folder, 'inner', 'data.bin'), content, { mode: 0o644 })
  writeFileSync(join(folder, 'outside.txt'), 'not in the subPath')
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 50, podRuntime: { claimFolders: { [`${NS}/files`]: folder } } })
  kube.seed(namespaceManifest(NS))
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const stream = kubeAuthenticatedStream(kube.kubeConfig)
  const proxy = (pod: string, path: string) => new URL(`${kube.url}/api/v1/namespaces/${NS}/pods/${pod}/proxy/${path}`)

  const anonymous = await fetch(proxy('reader-x:8080', 'data.bin'))
  t.equal(anonymous.status, 401, 'an API request: it needs the credentials')
  const missing = await stream(proxy('reader-x:8080', 'data.bin'), {})
  t.match({ status: missing.statusCode, body: JSON.parse((await readAll(missing)).toString()) }, { status: 404, body: { kind: 'Status', reason: 'NotFound', message: 'pods "reader-x" not found' } })

  kube.holdPods(NS)
  const held = (await core.createNamespacedPod({ namespace: NS, body: httpdPod(image) })).metadata?.name ?? ''
  const pending = await stream(proxy(`${held}:8080`, 'data.bin'), {})
  t.match({ status: pending.statusCode, body: JSON.parse((await readAll(pending)).toString()) }, { status: 400, body: { reason: 'BadRequest', message: 'address not allowed' } }, 'no pod IP while Pending')
  t.match(await core.readNamespacedPod({ name: held, namespace: NS }), { status: { phase: 'Pending', containerStatuses: [{ ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } }] } })
  await core.deleteNamespacedPod({ name: held, namespace: NS })
  kube.releasePods(NS)

  const name = (await core.createNamespacedPod({ namespace: NS, body: httpdPod(image) })).metadata?.name ?? ''
  const ready = await waitFor(async () => {
    const pod = await core.readNamespacedPod({ name, namespace: NS })
    return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? pod : undefined
  }, { timeoutMs: 60_000, intervalMs: 100 })
  t.match(ready.status, { phase: 'Running', podIP: /^\d+\.\d+\.\d+\.\d+$/ })
  t.same(kube.podRuntimeErrors, [])

  const whole = await stream(proxy(`${name}:8080`, 'data.bin'), {})
  t.equal(whole.statusCode, 200)
  t.equal(whole.headers['content-length'], String(content.length), 'the container\'s headers come back unchanged')
  t.equal(createHash('sha256').update(await readAll(whole)).digest('hex'), createHash('sha256').update(content).digest('hex'), 'every byte, streamed through')

  const part = await stream(proxy(name, 'data.bin'), { headers: { range: 'bytes=1000-1999' } })
  t.equal(part.statusCode, 206, 'Range is forwarded; the port defaults to the first container port')
  t.equal(part.headers['content-range'], `bytes 1000-1999/${content.length}`)
  t.same(await readAll(part), content.subarray(1000, 2000))

  const outside = await stream(proxy(`${name}:8080`, 'outside.txt'), {})
  t.equal(outside.statusCode, 404, 'the claim is mounted at its subPath: the rest of it is not there')
  await readAll(outside)
  const closedPort = await stream(proxy(`${name}:9999`, 'data.bin'), {})
  t.match({ status: closedPort.statusCode, body: JSON.parse((await readAll(closedPort)).toString()) }, { status: 503, body: { reason: 'ServiceUnavailable', message: `error trying to reach service: dial tcp ${String(ready.status?.podIP)}:9999: connect: connection refused` } })

  const dropped = await stream(proxy(`${name}:8080`, 'data.bin'), {})
  dropped.destroy()
  await core.deleteNamespacedPod({ name, namespace: NS })
  t.match(await rejection404(core, name), true, 'deleted')
  t.same(kube.internalErrors, [])
})

async function rejection404 (core: CoreV1Api, name: string): Promise<boolean> {
  try {
    await core.readNamespacedPod({ name, namespace: NS })
    return false
  } catch (error) {
    return (error as { code?: number }).code === 404
  }
}
