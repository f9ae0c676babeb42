/** Reading a request body (the API server's 3 MiB limit) and writing a JSON or text answer. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { failure } from './status.ts'

const MAX_BODY = 3 * 1024 * 1024

export function readBody (req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY) chunks.push(chunk)
    })
    req.on('end', () => (size > MAX_BODY ? reject(failure(413, 'Request entity too large: limit is 3145728')) : resolve(Buffer.concat(chunks).toString('utf8'))))
    req.on('error', reject)
  })
}

export function send (res: ServerResponse, code: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}): void {
  const text = contentType === 'application/json' ? JSON.stringify(body) : String(body)
  res.writeHead(code, { 'Content-Type': contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType, 'Content-Length': Buffer.byteLength(text), ...headers })
  res.end(text)
}
