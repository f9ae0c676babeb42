/**
 * Pods created directly (POST pods, no controller) and deleted (DELETE pods/<name>). Validated and
 * defaulted like any write (pod-spec rules, restartPolicy Always/OnFailure/Never), admitted by the
 * ResourceQuota (count and compute: the real 403 `exceeded quota`), `generateName` honoured.
 * A pod is Pending (no IP) until `readyDelayMs` after its create, then Running; it is Ready when its
 * container answers its readiness probe. With a runtime (pod-runtime.ts) the container runs for
 * real and its probe is run against it; without one, it is Ready at once and nothing listens.
 * `hold(namespace)` keeps new pods of a namespace Pending (an image that cannot be pulled).
 * `activeDeadlineSeconds` fails the pod (`DeadlineExceeded`) and stops its container.
 * Deletion is immediate (grace periods are ignored) and answers the Pod, as the real server does.
 */
import type { ApiRequest, ApiResponse } from './api-request.ts'
import { clone, isObject, type JsonObject } from './merge.ts'
import { renderPod, type SimPod } from './pods.ts'
import type { RunningContainer, DockerPodRuntime } from './pod-runtime.ts'
import type { QuotaTracker } from './quota.ts'
import { findByName } from './resources.ts'
import { failure, notFound } from './status.ts'
import { metadataOf, randomSuffix } from './store.ts'
import { requireObjectBody, checkIdentity } from './write-handlers.ts'
import { checkNamespaceAcceptsCreate, prepare, type WriteContext } from './write-path.ts'

interface BarePod { sim: SimPod, object: JsonObject, createdMs: number, held: string | undefined, container: RunningContainer | undefined, simIp: string }

const seconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')
const ENDED = new Set(['Succeeded', 'Failed'])

export class BarePods {
  readonly #ctx: WriteContext
  readonly #readyDelayMs: number
  readonly #quota: QuotaTracker
  readonly #runtime: DockerPodRuntime | undefined
  readonly #pods = new Map<string, BarePod>()
  readonly #holds = new Map<string, string>()
  #counter = 0

  constructor (ctx: WriteContext, readyDelayMs: number, quota: QuotaTracker, runtime: DockerPodRuntime | undefined) {
    this.#ctx = ctx
    this.#readyDelayMs = readyDelayMs
    this.#quota = quota
    this.#runtime = runtime
  }

  create (req: ApiRequest): ApiResponse {
    const type = findByName('Pod')
    const body = requireObjectBody(req.body)
    checkIdentity(req, body)
    const meta = isObject(body.metadata) ? body.metadata : {}
    if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string') body.metadata = { ...meta, name: `${meta.generateName}${randomSuffix()}` }
    const name = String(metadataOf(body).name ?? '')
    checkNamespaceAcceptsCreate(this.#ctx, type, req.namespace, name)
    const namespace = req.namespace ?? ''
    const object = prepare(this.#ctx, type, body, undefined, namespace)
    if (this.#pods.has(`${namespace}/${name}`)) throw failure(409, `pods "${name}" already exists`, { name, kind: 'pods' }, 'AlreadyExists')
    const refused = this.#quota.refusePod(namespace, object, name)
    if (refused !== undefined) throw failure(403, refused, { name, kind: 'pods' })
    const now = this.#ctx.now().getTime()
    this.#counter++
    const held = this.#holds.get(namespace)
    const sim: SimPod = {
      name, uid: String(metadataOf(object).uid), namespace, deployment: name, hash: '', template: object, ready: false, failing: held,
      createdAt: seconds(now), resourceVersion: this.#ctx.store.nextResourceVersion(), ip: '', job: { uid: '', phase: 'Pending' }
    }
    const spec = isObject(object.spec) ? object.spec : {}
    const container = held === undefined ? this.#runtime?.start(namespace, name, spec) : undefined
    const pod: BarePod = { sim, object, createdMs: now, held, container, simIp: `10.246.${Math.floor(this.#counter / 250) % 250}.${(this.#counter % 250) + 2}` }
    this.#pods.set(`${namespace}/${name}`, pod)
    return { code: 201, body: this.render(sim) }
  }

  remove (req: ApiRequest): ApiResponse {
    const key = `${req.namespace ?? ''}/${req.name ?? ''}`
    const pod = this.#pods.get(key)
    if (pod === undefined) throw notFound(findByName('Pod'), req.name ?? '')
    this.tick()
    const rendered = this.render(pod.sim)
    this.#pods.delete(key)
    void pod.container?.stop()
    const meta = isObject(rendered.metadata) ? rendered.metadata : {}
    return { code: 200, body: { ...rendered, metadata: { ...meta, deletionTimestamp: seconds(this.#ctx.now().getTime()), deletionGracePeriodSeconds: 0 } } }
  }

  /** Pending → Running (with an IP) → Ready as the container answers; the deadline fails it. */
  tick (): void {
    const now = this.#ctx.now().getTime()
    for (const [key, pod] of this.#pods) {
      const { sim } = pod
      if (this.#ctx.store.get(findByName('Namespace'), undefined, sim.namespace) === undefined) { // its namespace went, with it
        this.#pods.delete(key)
        void pod.container?.stop()
        continue
      }
      const before = `${sim.job?.phase ?? ''}/${String(sim.ready)}/${sim.ip}`
      const deadline = isObject(pod.object.spec) ? pod.object.spec.activeDeadlineSeconds : undefined
      if (ENDED.has(sim.job?.phase ?? '')) continue
      if (typeof deadline === 'number' && now > pod.createdMs + deadline * 1000) {
        sim.job = { uid: '', phase: 'Failed', exitCode: 137, reason: 'DeadlineExceeded', finishedAt: seconds(now) }
        sim.ready = false
        void pod.container?.stop()
      } else if (pod.held === undefined && now >= pod.createdMs + this.#readyDelayMs) {
        const running = pod.container === undefined || pod.container.ip !== undefined
        if (running) {
          sim.job = { uid: '', phase: 'Running' }
          sim.ip = pod.container?.ip ?? pod.simIp
          sim.ready = pod.container?.ready ?? true
        }
      }
      if (`${sim.job?.phase ?? ''}/${String(sim.ready)}/${sim.ip}` !== before) sim.resourceVersion = this.#ctx.store.nextResourceVersion()
    }
  }

  /** The Pod as the API returns it: the stored object, with the kubelet's status. */
  render (sim: SimPod): JsonObject {
    const shown = renderPod(sim)
    const status = isObject(shown.status) ? clone(shown.status) : {}
    const ready = sim.ready ? 'True' : 'False'
    status.conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isObject).map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: ready } : c))
    status.containerStatuses = (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).filter(isObject).map((c) => ({
      ...c, ready: sim.ready, ...(sim.failing === undefined || sim.job?.phase !== 'Pending' ? {} : { state: { waiting: { reason: sim.failing } } })
    }))
    if (sim.ip === '') { delete status.podIP; delete status.podIPs }
    if (sim.job?.reason === 'DeadlineExceeded') Object.assign(status, { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' })
    const meta = isObject(this.#pods.get(`${sim.namespace}/${sim.name}`)?.object.metadata) ? clone(this.#pods.get(`${sim.namespace}/${sim.name}`)?.object.metadata as JsonObject) : {}
    return { ...shown, metadata: { ...meta, resourceVersion: sim.resourceVersion }, spec: { ...clone(isObject(sim.template.spec) ? sim.template.spec : {}), nodeName: 'fake-node-1' }, status }
  }

  owns (sim: SimPod): boolean { return this.#pods.get(`${sim.namespace}/${sim.name}`)?.sim === sim }

  /** Where the pod's container answers, for the pod proxy: its IP once Running. */
  address (namespace: string, name: string): { pod: SimPod | undefined, listening: boolean } {
    const pod = this.#pods.get(`${namespace}/${name}`)
    return { pod: pod?.sim, listening: pod?.container?.ip !== undefined && pod.sim.job?.phase === 'Running' }
  }

  hold (namespace: string, reason = 'ImagePullBackOff'): void { this.#holds.set(namespace, reason) }

  release (namespace: string): void { this.#holds.delete(namespace) }

  pods (namespace?: string): SimPod[] {
    return [...this.#pods.values()].map((p) => p.sim).filter((p) => namespace === undefined || p.namespace === namespace)
  }

  activePods (namespace?: string): SimPod[] {
    return this.pods(namespace).filter((p) => !ENDED.has(p.job?.phase ?? ''))
  }

  /** Stops every container still running (the fake is closing). */
  async close (): Promise<void> {
    await Promise.all([...this.#pods.values()].map(async (p) => { await p.container?.stop() }))
    await this.#runtime?.settle()
  }
}
