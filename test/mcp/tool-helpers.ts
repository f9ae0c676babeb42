import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { bearer, type SignedUp } from '../support/accounts.ts'
import { callTool } from '../support/mcp.ts'

/** A tool's answer: `data` is `structuredContent`, `text` the first text content. */
export interface ToolOutcome {
  isError: boolean
  data: Record<string, any>
  text: string
}

/** `tools/call` that must come back as a tool result; a JSON-RPC error throws. */
export async function useTool (app: FastifyInstance, token: string, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const answer = await callTool(app, token, name, args)
  if (answer.result === undefined) throw new Error(`${name}: JSON-RPC error instead of a tool result: ${JSON.stringify(answer.error)}`)
  const { isError, structuredContent, content } = answer.result
  return { isError: isError === true, data: structuredContent, text: content[0]?.text ?? '' }
}

/** Checks a tool error: isError, the code, and the same code and message in the text content. */
export function assertToolError (t: Test, outcome: ToolOutcome, code: string, label = code): Record<string, any> {
  t.equal(outcome.isError, true, `${label}: isError`)
  t.equal(outcome.data.success, false, `${label}: structuredContent is the error envelope`)
  t.equal(outcome.data.error?.code, code, `${label}: code`)
  t.equal(outcome.text, `${code}: ${outcome.data.error?.message}`, `${label}: code and message in the text content`)
  return outcome.data.error ?? {}
}

/** A successful tool answer; the text content is the same JSON as structuredContent. */
export function assertToolSuccess (t: Test, outcome: ToolOutcome, label: string): Record<string, any> {
  t.equal(outcome.isError, false, `${label}: not an error (${outcome.text.slice(0, 200)})`)
  t.equal(outcome.text, JSON.stringify(outcome.data), `${label}: text content mirrors structuredContent`)
  return outcome.data
}

/** A REST answer as a portal client gets it, with `success` taken off so it compares with a tool's structuredContent. */
export async function restCall (app: FastifyInstance, token: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>): Promise<{ status: number, data: Record<string, any> }> {
  const response = await app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) })
  const { success: _success, request_id: _requestId, ...data } = response.json() as Record<string, any>
  return { status: response.statusCode, data }
}

export async function personName (app: FastifyInstance, person: SignedUp): Promise<string> {
  return (await restCall(app, person.token, 'GET', '/api/me')).data.user.name as string
}

/** The newest activity of a type, as the person reads it in the feed (REST). */
export async function latestActivity (app: FastifyInstance, person: SignedUp, type: string): Promise<Record<string, any> | undefined> {
  const feed = await restCall(app, person.token, 'GET', `/api/activity?type=${encodeURIComponent(type)}&limit=1`)
  return feed.data.activities?.[0]
}

export { tenantSnapshot } from '../support/snapshot.ts'
