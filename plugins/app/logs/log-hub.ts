/**
 * Live log fan-out: one LogChannel (one backend follow) per watched instance,
 * however many viewers it has. A viewer that comes with a position (Last-Event-ID)
 * first gets what it missed, from the channel's memory or read again from the
 * backend, while new lines wait in its queue; then the queue, without duplicates.
 *
 * The hub also does what is cheaper once for all viewers than once each: the
 * heartbeat, and the check that each viewer's portal session is still live
 * (one statement for every open stream), which ends the streams of a logout, a
 * deactivated user or a suspended tenant within `sessionCheckMs`.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { InstanceRef } from '../../../provisioning/backend.ts'
import type { LogBackend } from '../../../provisioning/log-backend.ts'
import { dateOf, IdAssigner, isAfter, type LogEntry, type LogPosition } from './log-ids.ts'
import { LogChannel } from './log-channel.ts'

/** What the hub needs of one open stream (sse-viewer.ts). */
export interface Viewer {
  sessionId: string
  send: (entry: LogEntry) => void
  heartbeat: () => void
  close: (reason: string) => void
}

export interface LogHubOptions {
  /** Session ids of `ids` that are still live (session, user and tenant active). */
  liveSessions: (ids: string[]) => Promise<Set<string>>
  heartbeatMs: number
  sessionCheckMs: number
  ringSize?: number
  /** How long a channel without viewers stays open for a reconnect. */
  lingerMs?: number
  retryMs?: number
  /** Most lines a viewer gets from the backend on a resume from an old position. */
  resumeLimit?: number
  log: Pick<FastifyBaseLogger, 'warn' | 'debug'>
}

interface Subscription {
  viewer: Viewer
  /** The last line sent; later ones only. */
  position: LogPosition | undefined
  /** Live lines held back while the missed ones are read. */
  queue: LogEntry[] | undefined
}

interface Watched {
  channel: LogChannel
  subscriptions: Set<Subscription>
  linger: NodeJS.Timeout | undefined
}

export interface LogTarget {
  /** One channel per key (backend and instance uid). */
  key: string
  backend: LogBackend
  ref: InstanceRef
}

/** Live lines a resuming viewer may have waiting; past that it is disconnected (it resumes again). */
const QUEUE_LIMIT = 10_000

function deliver (subscription: Subscription, entry: LogEntry): void {
  if (subscription.position !== undefined && !isAfter(entry, subscription.position)) return
  subscription.position = entry
  subscription.viewer.send(entry)
}

export function createLogHub (options: LogHubOptions) {
  const watched = new Map<string, Watched>()
  const lingerMs = options.lingerMs ?? 5000
  const resumeLimit = options.resumeLimit ?? 5000

  function channelFor (target: LogTarget): Watched {
    const existing = watched.get(target.key)
    if (existing !== undefined) {
      clearTimeout(existing.linger)
      existing.linger = undefined
      return existing
    }
    const subscriptions = new Set<Subscription>()
    const channel = new LogChannel({
      backend: target.backend,
      ref: target.ref,
      ringSize: options.ringSize ?? 2000,
      retryMs: options.retryMs ?? 1000,
      log: options.log,
      onLine: (entry) => {
        for (const subscription of subscriptions) {
          if (subscription.queue === undefined) deliver(subscription, entry)
          else if (subscription.queue.length < QUEUE_LIMIT) subscription.queue.push(entry)
          else subscription.viewer.close('too-slow')
        }
      }
    })
    const created: Watched = { channel, subscriptions, linger: undefined }
    watched.set(target.key, created)
    return created
  }

  async function missed (target: LogTarget, channel: LogChannel, from: LogPosition): Promise<LogEntry[]> {
    const kept = channel.after(from)
    if (kept !== undefined) return kept
    const lines = await target.backend.readLogs(target.ref, { tail: resumeLimit, since: dateOf(from) }) ?? []
    const ids = new IdAssigner()
    return lines.map((line) => ids.next(line)).filter((entry) => isAfter(entry, from))
  }

  function unsubscribe (key: string, subscription: Subscription): void {
    const entry = watched.get(key)
    if (entry === undefined || !entry.subscriptions.delete(subscription) || entry.subscriptions.size > 0) return
    entry.linger = setTimeout(() => {
      if (entry.subscriptions.size > 0) return
      entry.channel.close()
      watched.delete(key)
    }, lingerMs)
  }

  const heartbeat = setInterval(() => {
    for (const entry of watched.values()) for (const subscription of entry.subscriptions) subscription.viewer.heartbeat()
  }, options.heartbeatMs)
  heartbeat.unref()

  let checking = false
  const sessionCheck = setInterval(() => {
    if (checking) return
    const open = [...watched.values()].flatMap((entry) => [...entry.subscriptions])
    if (open.length === 0) return
    checking = true
    options.liveSessions([...new Set(open.map((s) => s.viewer.sessionId))]).then((live) => {
      for (const subscription of open) if (!live.has(subscription.viewer.sessionId)) subscription.viewer.close('session-ended')
    }, (error: unknown) => options.log.warn({ err: error }, 'Log stream session check failed; streams stay open until the next one'))
      .finally(() => { checking = false })
  }, options.sessionCheckMs)
  sessionCheck.unref()

  return {
    /**
     * Starts sending `target`'s lines to `viewer`: after `from` when given, else from now.
     * Answers the unsubscribe function (call it when the viewer goes).
     */
    async subscribe (target: LogTarget, viewer: Viewer, from?: LogPosition): Promise<() => void> {
      const entry = channelFor(target)
      const subscription: Subscription = { viewer, position: from, queue: from === undefined ? undefined : [] }
      entry.subscriptions.add(subscription)
      const leave = (): void => unsubscribe(target.key, subscription)
      if (from === undefined) return leave
      try {
        for (const line of await missed(target, entry.channel, from)) deliver(subscription, line)
      } catch (error) {
        options.log.warn({ err: error, instance: target.ref.subdomain }, 'Missed log lines could not be read; the stream goes on from now')
      }
      const queued = subscription.queue ?? []
      subscription.queue = undefined
      for (const line of queued) deliver(subscription, line)
      return leave
    },

    /** Viewers and backend follows open now. */
    stats: () => ({ channels: watched.size, viewers: [...watched.values()].reduce((n, e) => n + e.subscriptions.size, 0) }),

    close (): void {
      clearInterval(heartbeat)
      clearInterval(sessionCheck)
      for (const entry of watched.values()) {
        clearTimeout(entry.linger)
        for (const subscription of entry.subscriptions) subscription.viewer.close('server-closing')
        entry.channel.close()
      }
      watched.clear()
    }
  }
}

export type LogHub = ReturnType<typeof createLogHub>
