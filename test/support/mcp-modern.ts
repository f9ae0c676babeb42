import type { FastifyInstance } from 'fastify'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

/** The revision the v2 SDK speaks, and the `_meta` keys of its per-request envelope. */
export const MODERN = '2026-07-28'
export const ENVELOPE_KEYS = {
  version: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  capabilities: 'io.modelcontextprotocol/clientCapabilities'
} as const

/** The app on real HTTP (listening once per file), and its /api/mcp URL. */
export async function mcpUrl (app: FastifyInstance): Promise<URL> {
  const address = app.server.listening
    ? `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    : await app.listen({ port: 0, host: '127.0.0.1' })
  return new URL(`${address}/api/mcp`)
}

export type ElicitationAnswer = { action: 'accept', content: Record<string, string> } | { action: 'decline' } | { action: 'cancel' }
export interface ElicitationSeen { message: string, requestedSchema: Record<string, any>, mode?: string }

/**
 * The v2 SDK's Client pinned to 2026-07-28 on real HTTP with the agent's token. With `answer`, it
 * declares form elicitation and answers each question with it (the questions are kept in `asked`).
 */
export async function modernClient (url: URL, token: string, answer?: (question: ElicitationSeen) => ElicitationAnswer) {
  const asked: ElicitationSeen[] = []
  const client = new Client({ name: 'modern-test', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: MODERN } },
    ...(answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } })
  })
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const seen = request.params as unknown as ElicitationSeen
      asked.push(seen)
      return answer(seen)
    })
  }
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return { client, asked }
}

/** The envelope a 2026-07-28 request carries in `params._meta`. */
export function envelope (capabilities: Record<string, unknown> = {}, version = MODERN): Record<string, unknown> {
  return { [ENVELOPE_KEYS.version]: version, [ENVELOPE_KEYS.clientInfo]: { name: 'raw-test', version: '1.0.0' }, [ENVELOPE_KEYS.capabilities]: capabilities }
}

/** Headers of a 2026-07-28 POST: Mcp-Method (and Mcp-Name) mirror the body, as the spec requires. */
export function modernHeaders (token: string, method: string, name?: string, version = MODERN): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': version,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name })
  }
}

/** One raw POST to /api/mcp over real HTTP: status, headers and the JSON body (or the raw text of an SSE answer). */
export async function rawPost (url: URL, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await response.text()
  const json = response.headers.get('content-type')?.startsWith('application/json') === true && text !== '' ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json }
}
