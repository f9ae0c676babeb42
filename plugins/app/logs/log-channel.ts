/**
 * One backend follow of one instance, shared by everyone watching it. It keeps
 * the last `ringSize` lines, so a viewer that reconnects soon after a drop is
 * served from memory; older positions are read from the backend again. When the
 * follow ends (container stopped or restarted, pod replaced, connection lost)
 * it is resumed after `retryMs` from the last line seen, skipping what was
 * already passed on: lines are numbered once, here.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { InstanceRef } from '../../../provisioning/backend.ts'
import type { LogBackend, LogFollow, LogLine } from '../../../provisioning/log-backend.ts'
import { dateNs, timeNs } from '../../../provisioning/log-lines.ts'
import { dateOf, IdAssigner, isAfter, type LogEntry, type LogPosition } from './log-ids.ts'

export interface LogChannelOptions {
  backend: Pick<LogBackend, 'followLogs'>
  ref: InstanceRef
  ringSize: number
  retryMs: number
  log: Pick<FastifyBaseLogger, 'warn' | 'debug'>
  onLine: (entry: LogEntry) => void
}

export class LogChannel {
  readonly #options: LogChannelOptions
  readonly #ring: LogEntry[] = []
  readonly #ids = new IdAssigner()
  readonly #startNs: bigint
  /** Every line after this position is in the ring: the last evicted one, or just before the follow's start. */
  #floor: LogPosition
  #last: LogPosition | undefined
  /** After a resumed follow: lines the backend sends again, to skip. */
  #skip: { ns: bigint, count: number } | undefined
  #follow: LogFollow | undefined
  #retry: NodeJS.Timeout | undefined
  #closed = false

  constructor (options: LogChannelOptions) {
    this.#options = options
    const start = new Date()
    this.#startNs = dateNs(start)
    this.#floor = { ns: this.#startNs - 1n, seq: Number.MAX_SAFE_INTEGER }
    this.#open(start)
  }

  /** The lines after `position`, or undefined when the ring no longer reaches back that far. */
  after (position: LogPosition): LogEntry[] | undefined {
    if (isAfter(this.#floor, position)) return undefined
    return this.#ring.filter((entry) => isAfter(entry, position))
  }

  close (): void {
    this.#closed = true
    clearTimeout(this.#retry)
    this.#follow?.stop()
  }

  #open (since: Date): void {
    const { backend, ref, log } = this.#options
    backend.followLogs(ref, since, { line: (line) => this.#accept(line), end: (error) => this.#ended(error) }).then((follow) => {
      if (this.#closed) follow.stop()
      else this.#follow = follow
    }, (error: unknown) => this.#ended(error))
    log.debug({ instance: ref.subdomain, since }, 'Log follow opened')
  }

  #ended (error?: unknown): void {
    this.#follow = undefined
    if (this.#closed) return
    if (error !== undefined) this.#options.log.warn({ err: error, instance: this.#options.ref.subdomain }, 'Log follow failed; retrying')
    clearTimeout(this.#retry)
    this.#retry = setTimeout(() => {
      if (this.#closed) return
      const last = this.#last
      this.#skip = last === undefined ? undefined : { ns: last.ns, count: last.seq + 1 }
      this.#open(dateOf(last ?? { ns: this.#startNs, seq: 0 }))
    }, this.#options.retryMs)
  }

  #accept (line: LogLine): void {
    if (this.#closed) return
    const ns = timeNs(line.time) ?? 0n
    if (this.#skip !== undefined) {
      if (ns < this.#skip.ns) return
      if (ns === this.#skip.ns && this.#skip.count > 0) { this.#skip.count--; return }
      this.#skip = undefined
    }
    if (this.#last === undefined && ns < this.#startNs) return
    const entry = this.#ids.next(line)
    this.#last = entry
    this.#ring.push(entry)
    if (this.#ring.length > this.#options.ringSize) {
      const evicted = this.#ring.shift()
      if (evicted !== undefined) this.#floor = evicted
    }
    this.#options.onLine(entry)
  }
}
