/**
 * Every route of the OpenAPI document, fed hostile values field by field
 * (test/hostile/hostile-values.ts): NUL, lone surrogates, 1e309, -0, 2^63,
 * 20,000-character words, wrong types. Routes come from GET /api/openapi.json,
 * so a new route is covered without touching this file. Authenticated routes
 * are called as a tenant admin, public ones without credentials; the OAuth
 * routes reach the real authorization server through the portal's proxy.
 *
 * Never a 5xx; every 4xx in the envelope, or in the OAuth error format on
 * OAuth endpoints, or an HTML page on the browser pages (/login, /login/..., /oauth/...).
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, signup, type SignedUp } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { hostileValue, NUMERIC, SEED, type Hostile } from './hostile-values.ts'
import { hostileRequest, operationsOf, withProbes, type Field, type Operation } from './route-requests.ts'

const MANY = 1_000_000
const { app } = await startMcpFixture(t, {
  LOGIN_LIMIT_PER_IP: MANY, LOGIN_LIMIT_PER_ACCOUNT: MANY, SIGNUP_LIMIT_PER_IP: MANY, SIGNUP_LIMIT_PER_ACCOUNT: MANY
})

/** POST /api/mcp speaks JSON-RPC, not the envelope: test/hostile/mcp-tools.test.ts covers it. */
const ELSEWHERE = new Set(['POST /api/mcp'])
const RUNS_PER_ROUTE = 5

const isOAuthEndpoint = (path: string) => path.startsWith('/oauth/') || path.startsWith('/.well-known/') || path === '/api/oauth/register'
const isBrowserPage = (path: string) => path === '/login' || ['/oauth/', '/invitation/', '/password/', '/email/', '/login/'].some((prefix) => path.startsWith(prefix))

/** What a refusal must look like on this path; undefined when it does. */
function refusalProblem (path: string, response: LightMyRequestResponse): string | undefined {
  if (response.statusCode >= 500) return `HTTP ${response.statusCode}: ${response.body.slice(0, 300)}`
  if (response.statusCode < 400) return undefined
  const type = String(response.headers['content-type'] ?? '')
  if (type.startsWith('text/html')) return isBrowserPage(path) ? undefined : `an HTML ${response.statusCode} outside the browser pages`
  if (!type.startsWith('application/json')) return `HTTP ${response.statusCode} with content-type ${type || 'none'}`
  const body = response.json() as Record<string, any>
  // RFC 6749 5.2: an ASCII error code (a serializer's "[object Object]" is not one).
  if (isOAuthEndpoint(path) && typeof body.error === 'string') return /^[a-z_]+$/.test(body.error) ? undefined : `OAuth error code ${JSON.stringify(body.error)}`
  const envelope = body.success === false && typeof body.error?.code === 'string' && typeof body.error?.message === 'string' && typeof body.request_id === 'string'
  if (!envelope) return `HTTP ${response.statusCode} not in the envelope: ${response.body.slice(0, 300)}`
  return body.error.code === 'INTERNAL_ERROR' ? 'INTERNAL_ERROR' : undefined
}

const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
const operations = operationsOf(doc).filter((op) => !ELSEWHERE.has(`${op.method} ${op.path}`)).map(withProbes)

let admin: SignedUp = await signup(app)
/** A hostile request may end the admin's session (POST /api/logout takes no input, so it gets probes): sign in again. */
async function adminToken (): Promise<string> {
  const me = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })
  if (me.statusCode === 401) admin = await signup(app)
  return admin.token
}

const isNumeric = (field: Field) => ['integer', 'number'].some((type) => JSON.stringify(field.schema).includes(`"type":"${type}"`))

/** One hostile request; a bad answer is a tap failure naming the route, field and value (every one is reported, none shrunk). */
async function probe (t: Test, op: Operation, field: Field, value: Hostile): Promise<void> {
  const headers = op.security.includes('bearerAuth') ? bearer(await adminToken()) : {}
  const response = await app.inject(hostileRequest(op, field, value, headers))
  const problem = refusalProblem(op.path, response)
  if (problem !== undefined) t.fail(`${op.method} ${op.path} ${field.in} ${field.name} = ${value.label}: ${problem}`)
}

t.test('no hostile value in any field of any route answers a 5xx or leaves the envelope', async (t) => {
  t.ok(operations.length > 50, `${operations.length} operations from the OpenAPI document`)
  let requests = 0
  for (const op of operations) {
    // Every integer and number field gets the values only a bound refuses, on every run: a lost bound fails here.
    const examples: Array<[Field, Hostile]> = op.fields.filter(isNumeric).flatMap((field) => NUMERIC.map((value): [Field, Hostile] => [field, value]))
    await fc.assert(fc.asyncProperty(fc.constantFrom(...op.fields), hostileValue, async (field, value) => {
      requests++
      await probe(t, op, field, value)
    }), { seed: SEED, numRuns: RUNS_PER_ROUTE + examples.length, examples })
  }
  t.pass(`${requests} hostile requests`)
})

t.test('the check itself: a 500, a bare 400 and INTERNAL_ERROR are refused; the envelope and OAuth errors pass', async (t) => {
  const answer = (statusCode: number, body: unknown, type = 'application/json') =>
    ({ statusCode, headers: { 'content-type': type }, body: JSON.stringify(body), json: () => body }) as unknown as LightMyRequestResponse
  const envelope = { success: false, error: { code: 'VALIDATION_FAILED', message: 'm' }, request_id: 'r' }
  t.equal(refusalProblem('/api/x', answer(400, envelope)), undefined)
  t.equal(refusalProblem('/oauth/token', answer(400, { error: 'invalid_request' })), undefined)
  t.not(refusalProblem('/oauth/token', answer(400, { error: '[object Object]' })), undefined)
  t.not(refusalProblem('/api/x', answer(500, envelope)), undefined)
  t.not(refusalProblem('/api/x', answer(400, { error: 'invalid_request' })), undefined)
  t.not(refusalProblem('/api/x', answer(400, { ...envelope, error: { code: 'INTERNAL_ERROR', message: 'm' } })), undefined)
  t.not(refusalProblem('/api/x', answer(400, '<p>no</p>', 'text/html')), undefined)
})
