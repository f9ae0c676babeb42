import { Writable } from 'node:stream'

export type LogRecord = Record<string, unknown>

/** A pino logger option (level info) whose JSON lines are kept in `lines`, parsed, for a test to read. */
export function captureLog (level = 'info') {
  const lines: LogRecord[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim() !== '') lines.push(JSON.parse(text) as LogRecord)
      done()
    }
  })
  return { lines, logger: { level, stream } }
}
