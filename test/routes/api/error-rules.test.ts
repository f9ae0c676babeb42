import t from 'tap'
import { build } from '../../support/build.ts'
import { bearer, signup } from '../../support/accounts.ts'
import { recordInstances } from '../../support/instance-rows.ts'

// No engine answers here: every answer below is given before any backend is asked.
process.env.DOCKER_HOST = 'unix:///tmp/erp-portal-no-docker.sock'

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000'

interface Answer { status: number, body: any }

/** The API over a real socket, as the front end calls it. */
async function listening (t: Parameters<typeof build>[0]) {
  const { app } = await build(t)
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const call = async (method: string, path: string, token: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, body: await response.json() }
  }
  return { app, call }
}

t.test('schema and service refusals of malformed input: 400 VALIDATION_FAILED, the field first, allowed values named', async (t) => {
  const { app, call } = await listening(t)
  const admin = await signup(app)

  const version = await call('POST', '/api/instances/create', admin.token, { name: 'Production', subdomain: 'acme-prod', erp_version: '15.0', backend: 'docker' })
  t.equal(version.status, 400)
  t.same(version.body.error, {
    code: 'VALIDATION_FAILED',
    message: 'erp_version must be one of: 16.0, 17.0, 18.0',
    details: { fields: [{ field: 'erp_version', in: 'body', message: 'must be one of: 16.0, 17.0, 18.0', allowed: ['16.0', '17.0', '18.0'] }] }
  }, 'an ERP version not offered names the field and the versions offered')

  const subdomain = await call('POST', '/api/instances/create', admin.token, { name: 'Production', subdomain: 'Acme_Prod', erp_version: '17.0', backend: 'docker' })
  t.equal(subdomain.body.error.code, 'VALIDATION_FAILED')
  t.equal(subdomain.body.error.message, 'subdomain must be 3 to 40 lowercase letters, digits or hyphens, not starting or ending with a hyphen', 'a pattern is described, not shown')

  const missing = await call('POST', '/api/users/create', admin.token, {})
  t.equal(missing.status, 400)
  t.same(missing.body.error, {
    code: 'VALIDATION_FAILED',
    message: 'email is required; name is required; password is required',
    details: { fields: ['email', 'name', 'password'].map((field) => ({ field, in: 'body', message: 'is required' })) }
  }, 'a missing field: "<field> is required"')

  const shapes = await call('POST', '/api/users/create', admin.token, { email: 'not-an-address', name: '   ', password: 'short' })
  t.same(shapes.body.error.details.fields, [
    { field: 'email', in: 'body', message: 'must be a valid e-mail address' },
    { field: 'name', in: 'body', message: 'must not be blank' },
    { field: 'password', in: 'body', message: 'must be between 10 and 256 characters' }
  ])

  const role = await call('POST', '/api/users/invite', admin.token, { email: 'new@example.com', name: 'New', role: 'owner' })
  t.equal(role.status, 400)
  t.same(role.body.error, {
    code: 'VALIDATION_FAILED',
    message: 'role must be one of: admin, user',
    details: { fields: [{ field: 'role', in: 'body', message: 'must be one of: admin, user', allowed: ['admin', 'user'] }] }
  }, 'a union of literals is one issue listing the allowed values, not one per branch')

  const priority = await call('GET', '/api/tickets?priority=asap', admin.token)
  t.same(priority.body.error.details.fields, [{ field: 'priority', in: 'querystring', message: 'must be one of: low, normal, high, urgent', allowed: ['low', 'normal', 'high', 'urgent'] }], 'an enum in a query')
})

t.test('a thing that does not exist, or is another company\'s: 404 <THING>_NOT_FOUND', async (t) => {
  const { app, call } = await listening(t)
  const alice = await signup(app)
  const bob = await signup(app)
  const ticket = await call('POST', '/api/tickets/create', bob.token, { subject: 'Help me', description: 'Please' })
  t.equal(ticket.status, 201)
  const [aliceInstance] = await recordInstances(app, alice.user.tenant_id)
  const [bobInstance] = await recordInstances(app, bob.user.tenant_id)

  for (const id of [UNKNOWN_UUID, ticket.body.ticket.id]) {
    const answer = await call('GET', `/api/tickets/${id}`, alice.token)
    t.equal(answer.status, 404)
    t.equal(answer.body.error.code, 'TICKET_NOT_FOUND', `ticket ${id}`)
    t.equal((await call('POST', `/api/tickets/${id}/reply`, alice.token, { message: 'Me too' })).body.error.code, 'TICKET_NOT_FOUND')
  }

  const backup = await call('GET', `/api/instances/${aliceInstance}/backups/987654321`, alice.token)
  t.equal(backup.status, 404)
  t.equal(backup.body.error.code, 'BACKUP_NOT_FOUND')
  const foreignInstance = await call('GET', `/api/instances/${bobInstance}/backups/987654321`, alice.token)
  t.equal(foreignInstance.status, 404)
  t.same(foreignInstance.body.error, backup.body.error, 'a backup under another company\'s instance: the same BACKUP_NOT_FOUND')
  const instance = await call('GET', `/api/instances/${bobInstance}`, alice.token)
  t.equal(instance.status, 404)
  t.equal(instance.body.error.code, 'INSTANCE_NOT_FOUND')

  const user = await call('DELETE', `/api/users/${bob.user.id}`, alice.token)
  t.equal(user.status, 404)
  t.equal(user.body.error.code, 'USER_NOT_FOUND')

  const route = await call('GET', '/api/no-such-thing', alice.token)
  t.equal(route.status, 404)
  t.equal(route.body.error.code, 'ROUTE_NOT_FOUND', 'a URL no route serves: the framework\'s own 404')
})
