/**
 * Log lines as both engines give them with timestamps on: `<RFC 3339 time> <text>`,
 * the time with up to nine fractional digits. Times are compared as nanoseconds
 * since the epoch (bigint): Date keeps only milliseconds, and a chatty process
 * writes several lines in one.
 */
import type { LogLine } from './log-backend.ts'

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/

/** Nanoseconds since the epoch of an RFC 3339 time; undefined when it is not one. */
export function timeNs (time: string): bigint | undefined {
  const match = STAMP.exec(time)
  if (match === null) return undefined
  const ms = Date.parse(`${match[1]}${match[3]}`)
  if (Number.isNaN(ms)) return undefined
  return BigInt(ms) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'))
}

export const dateNs = (date: Date): bigint => BigInt(date.getTime()) * 1_000_000n

/** Oldest first (a stable sort keeps the order of lines of the same time). */
export function byTime (a: LogLine, b: LogLine): number {
  const diff = (timeNs(a.time) ?? 0n) - (timeNs(b.time) ?? 0n)
  return diff < 0n ? -1 : diff > 0n ? 1 : 0
}

/** `<time> <text>` into a line; a line without a valid time (a partial write) keeps `fallbackTime`. */
export function parseStampedLine (text: string, stream: LogLine['stream'], fallbackTime: string): LogLine {
  const space = text.indexOf(' ')
  const time = space > 0 ? text.slice(0, space) : text
  if (timeNs(time) === undefined) return { time: fallbackTime, stream, line: text }
  return { time, stream, line: space > 0 ? text.slice(space + 1) : '' }
}

/** Splits text into complete lines, keeping the unfinished rest for the next chunk. */
export class LineSplitter {
  #rest = ''

  push (chunk: string): string[] {
    const text = this.#rest + chunk
    const lines = text.split('\n')
    this.#rest = lines.pop() ?? ''
    return lines.map((line) => line.endsWith('\r') ? line.slice(0, -1) : line)
  }

  /** What is left when the source ends (a last line without a newline). */
  flush (): string[] {
    const rest = this.#rest
    this.#rest = ''
    return rest === '' ? [] : [rest]
  }
}

/** Lines at or after `since` (nanoseconds), the last `tail` of them. */
export function sinceAndTail (lines: LogLine[], since: bigint | undefined, tail: number): LogLine[] {
  const kept = since === undefined ? lines : lines.filter((line) => (timeNs(line.time) ?? 0n) >= since)
  return tail <= 0 ? [] : kept.slice(-tail)
}

/** An HTTP access line's request and status, as Odoo's werkzeug logs it: `... "GET /web/health HTTP/1.1" 200 - 2 0.001 0.003`. */
const ACCESS = /"(?:GET|HEAD) (\/[^\s"?]*)(?:\?[^\s"]*)? HTTP\/\d(?:\.\d)?" (\d{3})(?:\s|$)/

/**
 * Whether `text` is the access line of a health check that passed: a GET or HEAD of one of
 * `paths` answered 1xx to 3xx. The ERP writes one per probe (every 10 s on Docker, every probe
 * period on Kubernetes); a failing check (4xx, 5xx) says something and is kept.
 */
export function isPassedHealthCheck (text: string, paths: readonly string[]): boolean {
  const match = ACCESS.exec(text)
  if (match === null) return false
  return Number(match[2]) < 400 && paths.includes(match[1] ?? '')
}
