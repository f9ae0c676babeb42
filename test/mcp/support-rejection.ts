import type { LightMyRequestResponse } from 'fastify'
import type { Test } from 'tap'
import { BASE_URL } from '../support/mcp.ts'

const RESOURCE_METADATA = `${BASE_URL}/.well-known/oauth-protected-resource/api/mcp`

/** RFC 6750 + RFC 9728: what a request without credentials is told. */
export const NO_TOKEN_CHALLENGE = `Bearer resource_metadata="${RESOURCE_METADATA}", scope="mcp"`
/** What any refused token is told, whatever the reason (the reason is only logged). */
export const INVALID_TOKEN_CHALLENGE = `Bearer error="invalid_token", resource_metadata="${RESOURCE_METADATA}", scope="mcp"`

/** The REST error envelope, with request_id matching the X-Request-Id header. */
export function assertErrorEnvelope (t: Test, response: LightMyRequestResponse, code: string): void {
  const body = response.json() as Record<string, any>
  t.same(Object.keys(body).sort(), ['error', 'request_id', 'success'], 'the body is the error envelope')
  t.equal(body.success, false)
  t.equal(body.error?.code, code)
  t.type(body.error?.message, 'string')
  t.ok(body.error?.message.length > 0, 'the error has a message')
  t.equal(body.request_id, response.headers['x-request-id'], 'request_id is the X-Request-Id')
}

/** 401 with the challenge that carries no error: the client has to go and get a token. */
export function assertTokenMissing (t: Test, response: LightMyRequestResponse): void {
  t.equal(response.statusCode, 401)
  t.equal(response.headers['www-authenticate'], NO_TOKEN_CHALLENGE)
  assertErrorEnvelope(t, response, 'TOKEN_MISSING')
}

/** 401 with `error="invalid_token"`: the token was refused. */
export function assertTokenRefused (t: Test, response: LightMyRequestResponse): void {
  t.equal(response.statusCode, 401)
  t.equal(response.headers['www-authenticate'], INVALID_TOKEN_CHALLENGE)
  assertErrorEnvelope(t, response, 'TOKEN_INVALID')
}

/** 200 and a JSON-RPC result naming the tools: the token was accepted. */
export function assertAccepted (t: Test, response: LightMyRequestResponse): void {
  t.equal(response.statusCode, 200, 'the token is accepted')
  if (response.statusCode !== 200) t.comment(response.body)
  const tools = (response.json() as { result?: { tools?: Array<{ name: string }> } }).result?.tools ?? []
  t.ok(tools.some((tool) => tool.name === 'whoami'), 'tools/list answers the tools')
}
