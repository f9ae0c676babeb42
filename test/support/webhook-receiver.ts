import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { IncomingMessage } from 'node:http'
import { tempDir } from '../auth-server/helpers.ts'
import { startHttpsServer } from './https-server.ts'
import { verifySignature } from '../../plugins/app/webhooks/webhook-signature.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface Received {
  at: number
  headers: IncomingMessage['headers']
  body: string
  json: { id: string, type: string, created_at: string, tenant?: string, data: Record<string, unknown> }
  /** Which of the receiver's secrets verified the signature. */
  verifiedWith: string[]
  answered: number
}

/**
 * A real HTTPS receiver on 127.0.0.1 (`localhost`, a self-signed certificate): it records every
 * request, checks its signature against `secrets`, and answers `answer(n)` for the n-th request
 * (from 1), 204 by default.
 */
export async function startReceiver (t: Teardown, options: { answer?: (n: number) => number } = {}) {
  const received: Received[] = []
  const secrets: string[] = []
  const server = await startHttpsServer(t, {
    handler: (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        const header = String(req.headers['webhook-signature'] ?? '')
        const answered = options.answer?.(received.length + 1) ?? 204
        received.push({ at: Date.now(), headers: req.headers, body, json: JSON.parse(body), verifiedWith: secrets.filter((s) => verifySignature(header, body, s)), answered })
        res.statusCode = answered
        res.end()
      })
    }
  })
  const dir = await tempDir(t)
  const caFile = join(dir, 'ca.pem')
  await writeFile(caFile, server.ca)
  return {
    url: `${server.origin}/hooks`,
    received,
    secrets,
    /** Settings that let the service reach this receiver, with quick retries. */
    env: { WEBHOOK_ALLOWED_HOSTS: 'localhost', WEBHOOK_CA_FILE: caFile, WEBHOOK_RETRY_SECONDS: 1, WEBHOOK_FANOUT_MS: 50 }
  }
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until (check: () => boolean | Promise<boolean>, ms = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`Timed out waiting for ${what}`)
}
