/**
 * Each operation's error answers list the codes they carry (`x-error-codes`), generated from the
 * one declaration its route makes (`responses()`, schemas/error-responses.ts): every listed code
 * is a code the service defines, under the status it is answered with; the id routes of each
 * resource list its `<THING>_NOT_FOUND`; and what real refusals answer is what the document lists.
 */
import t from 'tap'
import { build } from '../support/build.ts'
import { bearer, signup } from '../support/accounts.ts'
import { definedErrors } from '../../lib/errors.ts'

type Response = { description?: string, 'x-error-codes'?: string[] }
interface Document { paths: Record<string, Record<string, { responses: Record<string, Response> }>> }

const { app } = await build(t)
const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Document
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000'

const codesOf = (method: string, path: string, status: number): string[] => doc.paths[path]?.[method]?.responses[String(status)]?.['x-error-codes'] ?? []

t.test('every listed code is defined, under its own status, and named in the description', async (t) => {
  const statusOf = new Map(definedErrors().map(({ code, statusCode }) => [code, statusCode]))
  // The framework's own answers (plugins/app/http/envelope.ts), which no defineError names.
  const framework = [['INTERNAL_ERROR', 500], ['DATABASE_UNAVAILABLE', 503], ['METHOD_NOT_ALLOWED', 405], ['PAYLOAD_TOO_LARGE', 413], ['UNSUPPORTED_MEDIA_TYPE', 415]] as const
  for (const [code, status] of framework) statusOf.set(code, status)
  let listed = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of response['x-error-codes'] ?? []) {
          listed++
          t.equal(statusOf.get(code), Number(status), `${method} ${path} ${status}: ${code} is answered with that status`)
          t.ok(response.description?.includes(`\`${code}\``), `${method} ${path} ${status}: the description names ${code}`)
        }
      }
      // The envelope's 400s (not MCP's JSON-RPC errors or the OAuth endpoints' own).
      if (operation.responses['400']?.description?.startsWith('An error envelope') === true) {
        t.ok(codesOf(method, path, 400).includes('VALIDATION_FAILED'), `${method} ${path}: 400 lists VALIDATION_FAILED`)
      }
    }
  }
  t.ok(listed > 300, `${listed} codes listed`)
})

t.test('the id routes of each resource list its not-found code', async (t) => {
  const rules: Array<[RegExp, string]> = [
    [/^\/api\/instances\/\{id\}/, 'INSTANCE_NOT_FOUND'],
    [/\{backup_id\}/, 'BACKUP_NOT_FOUND'],
    [/^\/api\/tickets\/\{id\}/, 'TICKET_NOT_FOUND'],
    [/^\/api\/users\/\{id\}/, 'USER_NOT_FOUND'],
    [/^\/api\/webhooks\/\{id\}/, 'WEBHOOK_NOT_FOUND'],
    [/^\/api\/addon-sources\/\{id\}/, 'ADDON_SOURCE_NOT_FOUND'],
    [/^\/api\/oauth\/grants\/\{id\}/, 'GRANT_NOT_FOUND'],
    [/^\/api\/me\/sessions\/\{id\}/, 'SESSION_NOT_FOUND']
  ]
  let checked = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [pattern, code] of rules) {
      if (!pattern.test(path)) continue
      for (const method of Object.keys(item)) {
        checked++
        t.ok(codesOf(method, path, 404).includes(code), `${method.toUpperCase()} ${path}: 404 lists ${code}`)
      }
    }
  }
  t.ok(checked > 40, `${checked} operations checked`)
})

t.test('what a refusal answers is what the document lists for it', async (t) => {
  const admin = await signup(app)
  const cases: Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, path: string, token?: string, payload?: Record<string, unknown> }> = [
    { method: 'GET', url: '/api/instances/999999', path: '/api/instances/{id}' },
    { method: 'POST', url: '/api/instances/999999/stop', path: '/api/instances/{id}/stop' },
    { method: 'GET', url: '/api/instances/999999/backups/1', path: '/api/instances/{id}/backups/{backup_id}' },
    { method: 'GET', url: `/api/tickets/${UNKNOWN_UUID}`, path: '/api/tickets/{id}' },
    { method: 'GET', url: `/api/webhooks/${UNKNOWN_UUID}`, path: '/api/webhooks/{id}' },
    { method: 'DELETE', url: `/api/me/sessions/${UNKNOWN_UUID}`, path: '/api/me/sessions/{id}' },
    { method: 'GET', url: '/api/instances', path: '/api/instances', token: 'not-a-token' },
    { method: 'POST', url: '/api/instances/create', path: '/api/instances/create', payload: { name: 'x', subdomain: 'acme-x', erp_version: '15.0', backend: 'docker' } },
    { method: 'POST', url: '/api/me/password', path: '/api/me/password', payload: { current_password: 'not the password', new_password: 'another long password 1' } },
    { method: 'POST', url: '/api/login', path: '/api/login', payload: { email: admin.email, password: 'not the password' } },
    { method: 'GET', url: '/api/support/tickets', path: '/api/support/tickets' },
    { method: 'GET', url: '/api/subscription/current', path: '/api/subscription/current' },
    { method: 'POST', url: '/api/users/create', path: '/api/users/create', payload: { email: admin.email, name: 'Again', password: 'a long enough password 1', role: 'user' } }
  ]
  for (const c of cases) {
    const answer = await app.inject({ method: c.method, url: c.url, headers: bearer(c.token ?? admin.token), ...(c.payload === undefined ? {} : { payload: c.payload }) })
    const { code } = answer.json().error as { code: string }
    t.ok(codesOf(c.method.toLowerCase(), c.path, answer.statusCode).includes(code), `${c.method} ${c.path}: ${answer.statusCode} ${code} is listed`)
  }
})
