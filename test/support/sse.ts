/** A Server-Sent Events client for tests: events and comments as they arrive, and waits with a timeout. */
import { request, type IncomingMessage } from 'node:http'

export interface SseEvent {
  id?: string
  event: string
  data: string
}

export interface SseConnection {
  status: number
  headers: IncomingMessage['headers']
  /** The whole body of an answer that is not a stream (an error envelope). */
  body: string
  events: SseEvent[]
  comments: string[]
  /** Resolves with the first event (from `after` on) that `match` accepts; rejects after `timeoutMs`. */
  waitFor: (match: (event: SseEvent) => boolean, timeoutMs: number, after?: number) => Promise<SseEvent>
  /** Resolves when the server ended the stream (or the connection dropped). */
  ended: Promise<void>
  close: () => void
}

export function openSse (url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = []
      const comments: string[] = []
      const waiters = new Set<() => void>()
      let buffer = ''
      let body = ''
      let endResolve: () => void = () => {}
      const ended = new Promise<void>((resolve) => { endResolve = resolve })
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) { body += chunk; return }
        buffer += chunk
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const event: SseEvent = { event: 'message', data: '' }
          let hasData = false
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else if (line.startsWith('id: ')) event.id = line.slice(4)
            else if (line.startsWith('event: ')) event.event = line.slice(7)
            else if (line.startsWith('data: ')) { event.data += (hasData ? '\n' : '') + line.slice(6); hasData = true }
          }
          if (hasData) events.push(event)
        }
        for (const wake of waiters) wake()
      })
      const finish = (): void => { endResolve(); for (const wake of waiters) wake() }
      res.on('end', finish)
      res.on('close', finish)
      res.on('error', finish)
      let done = false
      ended.then(() => { done = true }, () => {})
      const connection: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body () { return body },
        events,
        comments,
        ended,
        close: () => { req.destroy(); res.destroy() },
        waitFor: (match, timeoutMs, after = 0) => new Promise((resolve, reject) => {
          const check = (): boolean => {
            const found = events.slice(after).find(match)
            if (found !== undefined) { cleanup(); resolve(found); return true }
            if (done) { cleanup(); reject(new Error(`the stream ended without the awaited event; ${events.length} events`)); return true }
            return false
          }
          const timer = setTimeout(() => { cleanup(); reject(new Error(`no awaited event within ${timeoutMs} ms; ${events.length} events so far`)) }, timeoutMs)
          const cleanup = (): void => { clearTimeout(timer); waiters.delete(wake) }
          const wake = (): void => { check() }
          if (!check()) waiters.add(wake)
        })
      }
      if (res.statusCode !== 200) res.on('end', () => resolve(connection))
      else resolve(connection)
    })
    req.on('error', reject)
    req.end()
  })
}
