/**
 * Pod logs of an instance: the newest pod of its Deployment (the one a rollout
 * is bringing up, or the only one), container `erp`, with timestamps. The API
 * merges stdout and stderr, so every line is `stdout`. "Since" is whole seconds
 * on the wire (`sinceSeconds` for reads: client-node's read call has no
 * `sinceTime`; `sinceTime` for follows); the exact cut is made here.
 */
import { CoreV1Api, Log, type KubeConfig, type V1Pod } from '@kubernetes/client-node'
import { PassThrough } from 'node:stream'
import type { InstanceRef } from '../backend.ts'
import type { LogBackend, LogLine } from '../log-backend.ts'
import { dateNs, LineSplitter, parseStampedLine, sinceAndTail } from '../log-lines.ts'
import type { ApiCaller } from './api-call.ts'
import { isNotFound, KubernetesApiError } from './api-errors.ts'
import type { KubeApi } from './kube-api.ts'
import { CONTAINER_NAME, LABEL, namespaceOf, selectorLabels } from './names.ts'

const podSelector = (subdomain: string): string => Object.entries(selectorLabels(subdomain)).map(([k, v]) => `${k}=${v}`).join(',')

function newest (pods: V1Pod[]): V1Pod | undefined {
  const time = (pod: V1Pod): number => new Date(pod.metadata?.creationTimestamp ?? 0).getTime()
  return pods.filter((pod) => pod.metadata?.deletionTimestamp === undefined).sort((a, b) => time(b) - time(a))[0] ?? pods[0]
}

/** Whole seconds, rounded down: the API's sinceTime is an RFC 3339 time without fraction. */
const sinceTime = (since: Date): string => new Date(Math.floor(since.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')

/** Seconds back to `since`, rounded up (at least 1, as the API requires). */
const sinceSeconds = (since: Date): number => Math.max(1, Math.ceil((Date.now() - since.getTime()) / 1000) + 1)

function toLines (text: string, since: Date | undefined): LogLine[] {
  const splitter = new LineSplitter()
  const now = new Date().toISOString()
  const lines = [...splitter.push(text), ...splitter.flush()].map((raw) => parseStampedLine(raw, 'stdout', now))
  return since === undefined ? lines : sinceAndTail(lines, dateNs(since), lines.length)
}

export function createKubernetesLogs (kubeConfig: KubeConfig, call: ApiCaller, api: Pick<KubeApi, 'listPods'>, connectTimeoutMs: number): LogBackend {
  const core = kubeConfig.makeApiClient(CoreV1Api)
  const streams = new Log(kubeConfig)

  async function podOf (ref: InstanceRef): Promise<{ namespace: string, name: string } | undefined> {
    const namespace = namespaceOf(ref.tenantSubdomain)
    let pods: V1Pod[]
    try {
      pods = await api.listPods(namespace, `${podSelector(ref.subdomain)},${LABEL.instanceId}=${ref.instanceUid}`)
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
    const name = newest(pods)?.metadata?.name
    return name === undefined ? undefined : { namespace, name }
  }

  return {
    async readLogs (ref, { tail, since }) {
      const pod = await podOf(ref)
      if (pod === undefined) return undefined
      try {
        const text = await call(`read log of Pod ${pod.namespace}/${pod.name}`, (o) => core.readNamespacedPodLog({
          ...pod, container: CONTAINER_NAME, timestamps: true, tailLines: tail, ...(since === undefined ? {} : { sinceSeconds: sinceSeconds(since) })
        }, o))
        return sinceAndTail(toLines(text, since), undefined, tail)
      } catch (error) {
        if (isNotFound(error)) return undefined
        // 400: the container has not started yet (ContainerCreating, ImagePullBackOff): nothing written yet.
        if (error instanceof KubernetesApiError && error.code === 400) return []
        throw error
      }
    },

    async followLogs (ref, given, handlers) {
      // tailLines=0 is not sent by client-node (it drops falsy options): "from now" is a sinceTime.
      const since = given ?? new Date()
      const pod = await podOf(ref)
      if (pod === undefined) throw new KubernetesApiError(`no pod of ${ref.subdomain} to follow`, 404, undefined)
      const sink = new PassThrough()
      // client-node pipes the response into `sink` and keeps no error handler on it: an abort
      // (our stop) would be an uncaught exception.
      sink.on('pipe', (source) => source.on('error', (error) => end(stopped ? undefined : error)))
      const splitter = new LineSplitter()
      const from = dateNs(since)
      let stopped = false
      const emit = (raw: string): void => {
        const line = parseStampedLine(raw, 'stdout', new Date().toISOString())
        if (sinceAndTail([line], from, 1).length === 1) handlers.line(line)
      }
      const end = (error?: unknown): void => {
        if (stopped) return
        stopped = true
        for (const raw of splitter.flush()) emit(raw)
        handlers.end(error)
      }
      sink.on('data', (chunk: Buffer) => { if (!stopped) for (const raw of splitter.push(chunk.toString('utf8'))) emit(raw) })
      sink.on('end', () => end())
      sink.on('error', (error) => end(error))
      let timer: NodeJS.Timeout | undefined
      const controller = await Promise.race([
        streams.log(pod.namespace, pod.name, CONTAINER_NAME, sink, {
          follow: true, timestamps: true, sinceTime: sinceTime(since)
        }),
        new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`the log stream of ${pod.name} did not open within ${connectTimeoutMs} ms`)), connectTimeoutMs) })
      ]).finally(() => clearTimeout(timer))
      return {
        stop () {
          stopped = true
          controller.abort()
          sink.destroy()
        }
      }
    }
  }
}
