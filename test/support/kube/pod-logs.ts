/**
 * Pod logs as the API server relays them from the kubelet: seeded text (by pod or by
 * deployment, optionally per container), lines appended later, and the query parameters
 * `container`, `tailLines`, `limitBytes`, `timestamps` (each line prefixed with its RFC 3339
 * time to the nanosecond and a space), `sinceTime` (RFC 3339, whole seconds, inclusive) and
 * `follow` (the answer stays open and carries appended lines until the client goes).
 */
import type { ApiRequest, ApiResponse } from './api-request.ts'
import { containersOf, hasLogs, type SimPod } from './pods.ts'
import type { ResourceType } from './resources.ts'
import { badRequest, notFound } from './status.ts'

interface Piece {
  /** RFC 3339 with nine fractional digits, as the kubelet writes them. */
  time: string
  /** The line with its newline (a last line may have none). */
  text: string
}

interface Follower { key: string, write: (text: string) => void, timestamps: boolean }

let clockNs = 0n
/** Strictly increasing nanosecond times, near the wall clock. */
function stamp (): string {
  const now = BigInt(Date.now()) * 1_000_000n
  clockNs = now > clockNs ? now : clockNs + 1n
  const ms = Number(clockNs / 1_000_000n)
  const fraction = String(clockNs % 1_000_000_000n).padStart(9, '0')
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`
}

const piecesOf = (text: string): Piece[] => (text.match(/[^\n]*\n|[^\n]+$/g) ?? []).map((line) => ({ time: stamp(), text: line }))
const SINCE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/

export class PodLogs {
  #logs = new Map<string, Piece[]>()
  #followers = new Set<Follower>()

  set (namespace: string, podOrDeployment: string, text: string, container = ''): void {
    this.#logs.set(`${namespace}/${podOrDeployment}/${container}`, piecesOf(text))
  }

  /** Adds a line written now (a newline is added), and sends it to every follower of those logs. */
  append (namespace: string, podOrDeployment: string, line: string, container = ''): void {
    const key = `${namespace}/${podOrDeployment}/${container}`
    const piece = { time: stamp(), text: `${line}\n` }
    this.#logs.set(key, [...(this.#logs.get(key) ?? []), piece])
    for (const follower of this.#followers) if (follower.key === key) follower.write(follower.timestamps ? `${piece.time} ${piece.text}` : piece.text)
  }

  /** Followers open now (a follow ends when its client closes the connection). */
  followers (): number {
    return this.#followers.size
  }

  /** Which seeded log a pod's container shows: its own, else its deployment's; per container, else for all. */
  #keyOf (pod: SimPod, container: string): string {
    for (const owner of [pod.name, pod.deployment]) {
      for (const c of [container, '']) {
        const key = `${pod.namespace}/${owner}/${c}`
        if (this.#logs.has(key)) return key
      }
    }
    return `${pod.namespace}/${pod.deployment}/`
  }

  /** GET …/pods/<name>/log; errors as the kubelet reports them through the API server. */
  read (podType: ResourceType, pod: SimPod | undefined, req: ApiRequest): ApiResponse {
    if (pod === undefined) throw notFound(podType, req.name ?? '')
    const names = containersOf(pod).map((c) => String(c.name))
    const container = req.query.get('container') ?? (names.length === 1 ? names[0] : undefined)
    if (container === undefined) throw badRequest(`a container name must be specified for pod ${pod.name}, choose one of: [${names.join(' ')}]`)
    if (!names.includes(container)) throw badRequest(`container ${container} is not valid for pod ${pod.name}`)
    if (!hasLogs(pod)) throw badRequest(`container "${container}" in pod "${pod.name}" is waiting to start: ${pod.failing ?? 'ContainerCreating'}`)
    const key = this.#keyOf(pod, container)
    let pieces = this.#logs.get(key) ?? []
    const since = req.query.get('sinceTime')
    const seconds = req.query.get('sinceSeconds')
    if (since !== null && seconds !== null) throw badRequest('at most one of sinceTime or sinceSeconds may be specified')
    if (since !== null) {
      if (!SINCE_TIME.test(since)) throw badRequest(`parsing time "${since}" as "2006-01-02T15:04:05Z07:00": cannot parse`)
      const from = Math.floor(Date.parse(since) / 1000) * 1000
      pieces = pieces.filter((piece) => Date.parse(piece.time) >= from)
    }
    if (seconds !== null) {
      if (!/^[1-9]\d*$/.test(seconds)) throw badRequest('sinceSeconds: must be greater than 0')
      const from = Date.now() - Number(seconds) * 1000
      pieces = pieces.filter((piece) => Date.parse(piece.time) >= from)
    }
    const tail = req.query.get('tailLines')
    if (tail !== null && /^\d+$/.test(tail)) pieces = Number(tail) === 0 ? [] : pieces.slice(-Number(tail))
    const timestamps = req.query.get('timestamps') === 'true'
    let text = pieces.map((piece) => timestamps ? `${piece.time} ${piece.text}` : piece.text).join('')
    const limit = req.query.get('limitBytes')
    if (limit !== null && /^\d+$/.test(limit)) text = Buffer.from(text, 'utf8').subarray(0, Number(limit)).toString('utf8')
    if (req.query.get('follow') !== 'true') return { code: 200, body: text, contentType: 'text/plain' }
    return {
      code: 200,
      body: text,
      contentType: 'text/plain',
      follow: (write) => {
        const follower: Follower = { key, write, timestamps }
        this.#followers.add(follower)
        return () => { this.#followers.delete(follower) }
      }
    }
  }
}
