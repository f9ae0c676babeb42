/**
 * Container output with timestamps, demultiplexed: a container without a TTY (ours)
 * sends frames of an 8-byte header (stream 1 stdout / 2 stderr, three zero bytes,
 * payload size as uint32 big-endian) and the payload.
 */
import type Docker from 'dockerode'
import type { LogBackend, LogLine } from '../log-backend.ts'
import { byTime, dateNs, LineSplitter, parseStampedLine, sinceAndTail } from '../log-lines.ts'
import { statusOf, type EngineCall } from './engine-calls.ts'
import { containerName } from './names.ts'

const STREAMS: Record<number, LogLine['stream']> = { 1: 'stdout', 2: 'stderr' }

export interface Demuxed {
  stdout: string
  stderr: string
  /** Both streams, in the engine's order. */
  text: string
}

/**
 * A whole buffer of frames, split by stream. What does not parse as a frame (a TTY container's
 * plain output, a torn tail) is kept as stdout.
 */
export function demuxFrames (buffer: Buffer): Demuxed {
  const out: Buffer[] = []
  const err: Buffer[] = []
  const all: Buffer[] = []
  let offset = 0
  while (offset + 8 <= buffer.length) {
    const type = buffer[offset]
    const length = buffer.readUInt32BE(offset + 4)
    if ((type !== 0 && type !== 1 && type !== 2) || buffer[offset + 1] !== 0 || offset + 8 + length > buffer.length) break
    const payload = buffer.subarray(offset + 8, offset + 8 + length)
    ;(type === 2 ? err : out).push(payload)
    all.push(payload)
    offset += 8 + length
  }
  if (offset < buffer.length) { out.push(buffer.subarray(offset)); all.push(buffer.subarray(offset)) }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), text: Buffer.concat(all).toString('utf8') }
}

/** Turns the engine's frames into lines, chunk by chunk (a frame or a line may span chunks). */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0)
  #splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() }

  push (chunk: Buffer): LogLine[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk])
    const lines: LogLine[] = []
    while (this.#pending.length >= 8) {
      const size = this.#pending.readUInt32BE(4)
      if (this.#pending.length < 8 + size) break
      const stream = STREAMS[this.#pending[0] ?? 0] ?? 'stdout'
      const payload = this.#pending.subarray(8, 8 + size).toString('utf8')
      this.#pending = this.#pending.subarray(8 + size)
      for (const text of this.#splitters[stream].push(payload)) lines.push(parseStampedLine(text, stream, lines.at(-1)?.time ?? new Date().toISOString()))
    }
    return lines
  }

  flush (): LogLine[] {
    const now = new Date().toISOString()
    return (['stdout', 'stderr'] as const).flatMap((stream) => this.#splitters[stream].flush().map((text) => parseStampedLine(text, stream, now)))
  }
}

/** The engine's `since`: seconds with a nanosecond fraction. */
function sinceParam (since: Date): string {
  const ms = since.getTime()
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1_000_000).padStart(9, '0')}`
}

/** Most lines read to find the last `tail` of one stream. */
const MAX_SCANNED_LINES = 100_000

export function createDockerLogs (docker: Docker, call: EngineCall, connectTimeoutMs: number): LogBackend {
  async function read (name: string, tail: number, since: Date | undefined): Promise<LogLine[] | undefined> {
    let body: Buffer
    try {
      body = await call('logs', name, (signal) => docker.getContainer(name).logs({
        stdout: true, stderr: true, timestamps: true, follow: false, tail, ...(since === undefined ? {} : { since: sinceParam(since) }), abortSignal: signal
      } as Docker.ContainerLogsOptions & { follow: false, abortSignal: AbortSignal }) as unknown as Promise<Buffer>)
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
    const reader = new FrameReader()
    // The engine's order across the two streams is its own; ours is by time.
    return [...reader.push(Buffer.from(body)), ...reader.flush()].sort(byTime)
  }

  return {
    async readLogs (ref, { tail, since, streams = 'all' }) {
      const name = containerName(ref.subdomain)
      const from = since === undefined ? undefined : dateNs(since)
      // The engine cuts `tail` before it picks a stream: for one stream, ask for more until enough are in.
      for (let asked = streams === 'all' ? tail : tail * 4; ; asked *= 4) {
        const lines = await read(name, asked, since)
        if (lines === undefined) return undefined
        const kept = streams === 'all' ? lines : lines.filter((line) => line.stream === streams)
        if (kept.length >= tail || lines.length < asked || asked >= MAX_SCANNED_LINES) return sinceAndTail(kept, from, tail)
      }
    },

    async followLogs (ref, since, handlers) {
      const name = containerName(ref.subdomain)
      // Not the call's timeout signal: that would end the stream too. The timeout bounds the connection only.
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), connectTimeoutMs)
      const stream = await call('logs', name, () => docker.getContainer(name).logs({
        stdout: true, stderr: true, timestamps: true, follow: true,
        ...(since === undefined ? { tail: 0 } : { since: sinceParam(since) }),
        abortSignal: controller.signal
      } as Docker.ContainerLogsOptions & { follow: true, abortSignal: AbortSignal }) as unknown as Promise<NodeJS.ReadableStream>, connectTimeoutMs + 1000).finally(() => clearTimeout(timer))
      const reader = new FrameReader()
      let stopped = false
      const end = (error?: unknown): void => {
        if (stopped) return
        stopped = true
        for (const line of reader.flush()) handlers.line(line)
        handlers.end(error)
      }
      stream.on('data', (chunk: Buffer) => { if (!stopped) for (const line of reader.push(chunk)) handlers.line(line) })
      stream.on('end', () => end())
      stream.on('close', () => end())
      stream.on('error', (error) => end(error))
      return {
        stop () {
          stopped = true
          controller.abort()
          ;(stream as unknown as { destroy?: () => void }).destroy?.()
        }
      }
    }
  }
}
