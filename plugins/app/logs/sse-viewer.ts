/**
 * One open log stream as Server-Sent Events on the raw response. Each line is an
 * event with `id:` (its position) and `data:` ({id, time, stream, line} as JSON).
 *
 * Backpressure: a client that does not read fast enough is disconnected once
 * `maxBufferedBytes` wait in its socket's buffer; no line is dropped silently,
 * so the client's reconnect (EventSource does it on its own, sending
 * Last-Event-ID) resumes exactly where it stopped reading.
 */
import type { ServerResponse } from 'node:http'
import type { LogEntry } from './log-ids.ts'
import type { Viewer } from './log-hub.ts'

export interface SseViewerOptions {
  sessionId: string
  /** `stdout` or `stderr` for one stream only. */
  stream: 'stdout' | 'stderr' | 'all'
  maxBufferedBytes: number
  maxLifetimeMs: number
  retryMs: number
  onClose: () => void
}

const events = new WeakMap<LogEntry, string>()

/** Serialised once per line, however many viewers get it. */
export function eventOf (entry: LogEntry): string {
  let text = events.get(entry)
  if (text === undefined) {
    text = `id: ${entry.id}\ndata: ${JSON.stringify({ id: entry.id, time: entry.time, stream: entry.stream, line: entry.line })}\n\n`
    events.set(entry, text)
  }
  return text
}

export function openSseViewer (res: ServerResponse, headers: Record<string, unknown>, options: SseViewerOptions): Viewer & { closed: () => boolean } {
  let closed = false
  const lifetime = setTimeout(() => close('max-lifetime'), options.maxLifetimeMs)

  function close (reason: string): void {
    if (closed) return
    closed = true
    clearTimeout(lifetime)
    if (!res.destroyed && res.writableLength < options.maxBufferedBytes) {
      res.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`)
    } else {
      res.destroy()
    }
    options.onClose()
  }

  let corked = false
  const uncork = (): void => { corked = false; res.uncork() }

  function write (text: string): void {
    if (closed) return
    if (res.writableLength > options.maxBufferedBytes) {
      closed = true
      clearTimeout(lifetime)
      res.destroy()
      options.onClose()
      return
    }
    // The lines of one backend chunk go out in one write (and one chunk of the response), not one each.
    if (!corked) {
      corked = true
      res.cork()
      process.nextTick(uncork)
    }
    res.write(text)
  }

  res.on('close', () => {
    if (closed) return
    closed = true
    clearTimeout(lifetime)
    options.onClose()
  })
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no'
  })
  res.write(`retry: ${options.retryMs}\n: log stream open\n\n`)

  return {
    sessionId: options.sessionId,
    send (entry) {
      if (options.stream === 'all' || entry.stream === options.stream) write(eventOf(entry))
    },
    heartbeat () { write(': heartbeat\n\n') },
    close,
    closed: () => closed
  }
}
