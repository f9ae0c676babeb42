/**
 * Event ids of log lines: `<nanoseconds since the epoch>-<n>`, n counting the
 * lines of the same nanosecond. They grow with every line, so "everything after
 * id X" is well defined: that is what a reconnect with Last-Event-ID asks for.
 */
import type { LogLine } from '../../../provisioning/log-backend.ts'
import { timeNs } from '../../../provisioning/log-lines.ts'

export interface LogPosition {
  ns: bigint
  seq: number
}

export interface LogEntry extends LogLine, LogPosition {
  id: string
}

export function parseEventId (id: string | undefined): LogPosition | undefined {
  const match = /^(\d{1,25})-(\d{1,9})$/.exec(id ?? '')
  return match === null ? undefined : { ns: BigInt(match[1] ?? '0'), seq: Number(match[2]) }
}

/** Whether `a` comes after `b`. */
export function isAfter (a: LogPosition, b: LogPosition): boolean {
  return a.ns > b.ns || (a.ns === b.ns && a.seq > b.seq)
}

/** Numbers lines in the order they come; a line stamped earlier than its predecessor keeps the predecessor's place. */
export class IdAssigner {
  #last: LogPosition | undefined

  constructor (last?: LogPosition) {
    this.#last = last
  }

  next (line: LogLine): LogEntry {
    const stamped = timeNs(line.time) ?? 0n
    const last = this.#last
    const position = last === undefined || stamped > last.ns ? { ns: stamped, seq: 0 } : { ns: last.ns, seq: last.seq + 1 }
    this.#last = position
    return { ...line, ...position, id: `${position.ns}-${position.seq}` }
  }
}

/** Milliseconds are all a Date keeps: the time to ask a backend "since", at or before the position. */
export const dateOf = (position: LogPosition): Date => new Date(Number(position.ns / 1_000_000n))
