/** What a backend offers of an instance's output (provisioning/<backend>/logs.ts). */
import type { InstanceRef } from './backend.ts'

/** One line of an instance's output, as the backend recorded it. */
export interface LogLine {
  /** RFC 3339 with the backend's precision (nanoseconds on Docker and Kubernetes), UTC. */
  time: string
  /** Kubernetes does not keep the two apart: its lines are all `stdout`. */
  stream: 'stdout' | 'stderr'
  line: string
}

export interface LogQuery {
  /** The last `tail` lines (after `since`). */
  tail: number
  /** Only lines written at or after this time. */
  since?: Date
  /** One stream only (default both). */
  streams?: 'stdout' | 'stderr' | 'all'
}

/** A running follow of an instance's output; `stop` ends it (idempotent). */
export interface LogFollow {
  stop: () => void
}

export interface LogFollowHandlers {
  line: (line: LogLine) => void
  /** The follow ended by itself (container stopped, pod replaced, connection lost); not called after `stop`. */
  end: (error?: unknown) => void
}

/** The log part of a backend (provisioning/<backend>/logs.ts). */
export interface LogBackend {
  /** The last lines, oldest first; undefined when the backend has nothing for the instance (never created, or removed). */
  readLogs: (ref: InstanceRef, query: LogQuery) => Promise<LogLine[] | undefined>
  /** New lines as they are written, from `since` (default: now). Rejects when there is nothing to follow. */
  followLogs: (ref: InstanceRef, since: Date | undefined, handlers: LogFollowHandlers) => Promise<LogFollow>
}
