/**
 * A simulated Job controller + kubelet (batch/v1). A Job gets one synthetic Pod (`<job>-<xxxxx>`,
 * the template's labels: `job-name`, `controller-uid` …), Pending until `readyDelayMs` after the
 * write, then Running until a test ends it: `complete` (exit 0) or `fail` (exit code). A failed pod
 * is replaced while `status.failed` stays within `spec.backoffLimit`; past it, or past
 * `activeDeadlineSeconds`, the Job fails. `status` is written as the real controller writes it:
 * `active`/`succeeded`/`failed` omitted when zero, `ready`/`terminating` always present,
 * conditions `SuccessCriteriaMet` + `Complete`, or `FailureTarget` + `Failed`. Deleting a Job
 * orphans its pods unless `propagationPolicy` is Background or Foreground (the batch/v1 default
 * is orphan, unlike most kinds).
 */
import { isObject, type JsonObject } from './merge.ts'
import type { SimPod } from './pods.ts'
import { findByName, type ResourceType } from './resources.ts'
import { metadataOf, randomSuffix, type StoredEntry } from './store.ts'
import { writeStatus, type WriteContext } from './write-path.ts'

interface SimJob { uid: string, namespace: string, name: string, template: JsonObject, backoffLimit: number, deadlineSeconds: number | undefined, startedAt: number, pods: SimPod[], failed: number, succeeded: number, end: { type: 'Complete' | 'Failed', reason: string, message: string, at: number } | undefined }

export interface JobEnding { exitCode?: number, reason?: string }

const seconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')
const FINISHED = new Set(['Succeeded', 'Failed'])

export class JobController {
  readonly #ctx: WriteContext
  readonly #readyDelayMs: number
  readonly #type: ResourceType = findByName('Job')
  readonly #jobs = new Map<string, SimJob>()
  /** Pods left behind by a Job deleted with the orphan policy. */
  #orphans: SimPod[] = []
  #deletionPolicy: string | undefined
  #podCounter = 0
  /** Pod admission (the ResourceQuota check): a refusal message, or undefined to create the pod. */
  refusePod: ((namespace: string, template: JsonObject, podPrefix: string) => string | undefined) | undefined
  /** Called when a Job completes (its pod exited 0), with its pod template. */
  onComplete: ((namespace: string, template: JsonObject) => void) | undefined

  /** A running pod exits 0 by itself this long after it started; undefined: only complete()/fail() end it. */
  readonly #runMs: number | undefined

  constructor (ctx: WriteContext, readyDelayMs: number, runMs?: number) {
    this.#ctx = ctx
    this.#readyDelayMs = readyDelayMs
    this.#runMs = runMs
    ctx.store.onChange((type, before, after) => { if (type.kind === 'Job') this.#observe(before, after) })
  }

  /** The router tells the policy of a DELETE just before the store removes the Job. */
  deleting (policy: string | undefined): void { this.#deletionPolicy = policy }

  #observe (before: StoredEntry | undefined, after: StoredEntry | undefined): void {
    const meta = metadataOf((after ?? before)?.object ?? {})
    const key = `${String(meta.namespace)}/${String(meta.name)}`
    if (after === undefined) {
      const job = this.#jobs.get(key)
      this.#jobs.delete(key)
      const cascade = this.#deletionPolicy === 'Background' || this.#deletionPolicy === 'Foreground' || this.#namespaceTerminating(String(meta.namespace))
      if (job !== undefined && !cascade) this.#orphans.push(...job.pods.map((p) => ({ ...p, job: { ...(p.job ?? { phase: 'Running' as const }), uid: '' } })))
      this.#deletionPolicy = undefined
      return
    }
    if (this.#jobs.get(key)?.uid === meta.uid) return
    const spec = isObject(after.object.spec) ? after.object.spec : {}
    const job: SimJob = {
      uid: String(meta.uid), namespace: String(meta.namespace), name: String(meta.name),
      template: isObject(spec.template) ? spec.template : {},
      backoffLimit: typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6,
      deadlineSeconds: typeof spec.activeDeadlineSeconds === 'number' ? spec.activeDeadlineSeconds : undefined,
      startedAt: this.#ctx.now().getTime(), pods: [], failed: 0, succeeded: 0, end: undefined
    }
    this.#jobs.set(key, job)
    this.#startPod(job)
  }

  #namespaceTerminating (namespace: string): boolean {
    const entry = this.#ctx.store.get(findByName('Namespace'), undefined, namespace)
    return entry === undefined || metadataOf(entry.object).deletionTimestamp !== undefined
  }

  #startPod (job: SimJob): void {
    const now = this.#ctx.now().getTime()
    if (this.refusePod?.(job.namespace, job.template, `${job.name}-`) !== undefined) return // FailedCreate: only an event on a cluster
    this.#podCounter++
    job.pods.push({
      name: `${job.name}-${randomSuffix()}`, uid: this.#ctx.store.newUid(), namespace: job.namespace, deployment: job.name, hash: '',
      template: job.template, ready: false, failing: undefined, createdAt: seconds(now), resourceVersion: this.#ctx.store.nextResourceVersion(),
      ip: `10.245.${Math.floor(this.#podCounter / 250) % 250}.${(this.#podCounter % 250) + 2}`,
      job: { uid: job.uid, phase: 'Pending' }
    })
  }

  #find (namespace: string, name: string): SimJob {
    const job = this.#jobs.get(`${namespace}/${name}`)
    if (job === undefined) throw new Error(`fake kube-apiserver: no Job ${namespace}/${name}`)
    return job
  }

  #active (job: SimJob): SimPod | undefined {
    return job.pods.find((p) => !FINISHED.has(p.job?.phase ?? ''))
  }

  #endPod (pod: SimPod, phase: 'Succeeded' | 'Failed', exitCode: number, reason: string): void {
    pod.job = { uid: pod.job?.uid ?? '', phase, exitCode, reason, finishedAt: seconds(this.#ctx.now().getTime()) }
    pod.ready = false
    pod.resourceVersion = this.#ctx.store.nextResourceVersion()
  }

  /** The running pod exits 0: the Job completes. */
  complete (namespace: string, name: string): void {
    this.tick()
    const job = this.#find(namespace, name)
    const pod = this.#active(job)
    if (job.end !== undefined || pod === undefined) throw new Error(`fake kube-apiserver: Job ${namespace}/${name} has no running pod`)
    this.#endPod(pod, 'Succeeded', 0, 'Completed')
    job.succeeded++
    job.end = { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', at: this.#ctx.now().getTime() }
    this.onComplete?.(job.namespace, job.template)
    this.tick()
  }

  /** The running pod exits non-zero: a new pod while `failed <= backoffLimit`, else the Job fails. */
  fail (namespace: string, name: string, ending: JobEnding = {}): void {
    this.tick()
    const job = this.#find(namespace, name)
    const pod = this.#active(job)
    if (job.end !== undefined || pod === undefined) throw new Error(`fake kube-apiserver: Job ${namespace}/${name} has no running pod`)
    this.#endPod(pod, 'Failed', ending.exitCode ?? 1, ending.reason ?? 'Error')
    job.failed++
    if (job.failed > job.backoffLimit) job.end = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', at: this.#ctx.now().getTime() }
    else this.#startPod(job)
    this.tick()
  }

  tick (): void {
    const now = this.#ctx.now().getTime()
    for (const job of this.#jobs.values()) {
      if (job.end === undefined && this.#active(job) === undefined && job.pods.length === job.failed) this.#startPod(job)
      for (const pod of job.pods) {
        if (pod.job?.phase === 'Pending' && now >= Date.parse(pod.createdAt) + this.#readyDelayMs) {
          pod.job = { ...pod.job, phase: 'Running' }
          pod.ready = true
          pod.resourceVersion = this.#ctx.store.nextResourceVersion()
        }
      }
      const running = this.#active(job)
      if (job.end === undefined && this.#runMs !== undefined && running?.job?.phase === 'Running' && now >= Date.parse(running.createdAt) + this.#readyDelayMs + this.#runMs) {
        this.#endPod(running, 'Succeeded', 0, 'Completed')
        job.succeeded++
        job.end = { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', at: now }
        this.onComplete?.(job.namespace, job.template)
      }
      if (job.end === undefined && job.deadlineSeconds !== undefined && now > job.startedAt + job.deadlineSeconds * 1000) {
        const pod = this.#active(job)
        if (pod !== undefined) job.pods = job.pods.filter((p) => p !== pod) // the controller deletes the active pods
        job.end = { type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline', at: now }
      }
      const entry = this.#ctx.store.get(this.#type, job.namespace, job.name)
      if (entry !== undefined) writeStatus(this.#ctx, entry, this.#status(entry, job), 'kube-controller-manager')
    }
  }

  #status (entry: StoredEntry, job: SimJob): JsonObject {
    const active = job.end === undefined ? job.pods.filter((p) => !FINISHED.has(p.job?.phase ?? '')).length : 0
    const ready = job.pods.filter((p) => p.job?.phase === 'Running').length
    const previous = isObject(entry.object.status) && Array.isArray(entry.object.status.conditions) ? entry.object.status.conditions.filter(isObject) : []
    const condition = (type: string, reason: string, message: string, at: number): JsonObject =>
      previous.find((c) => c.type === type) ?? { type, status: 'True', lastProbeTime: seconds(at), lastTransitionTime: seconds(at), reason, message }
    const end = job.end
    const conditions = end === undefined
      ? []
      : end.type === 'Complete'
        ? [condition('SuccessCriteriaMet', end.reason, end.message, end.at), condition('Complete', end.reason, end.message, end.at)]
        : [condition('FailureTarget', end.reason, end.message, end.at), condition('Failed', end.reason, end.message, end.at)]
    const counts: JsonObject = { active, succeeded: job.succeeded, failed: job.failed }
    return {
      ...(conditions.length > 0 ? { conditions } : {}),
      startTime: seconds(job.startedAt),
      ...(end?.type === 'Complete' ? { completionTime: seconds(end.at) } : {}),
      ...Object.fromEntries(Object.entries(counts).filter(([, v]) => v !== 0)),
      ready,
      terminating: 0,
      uncountedTerminatedPods: {}
    }
  }

  /** Every pod of a Job, its orphans included (terminated ones too: the kubelet keeps them until deleted). */
  pods (namespace?: string): SimPod[] {
    return [...[...this.#jobs.values()].flatMap((j) => j.pods), ...this.#orphans].filter((p) => namespace === undefined || p.namespace === namespace)
  }

  /** The pods that count against quota: not yet finished. */
  activePods (namespace?: string): SimPod[] {
    return this.pods(namespace).filter((p) => !FINISHED.has(p.job?.phase ?? ''))
  }
}
