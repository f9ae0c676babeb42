import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { fillTenant } from '../../../support/data.ts'
import { recordInstance, recordInstances } from '../../../support/instance-rows.ts'
import { checkPagedList } from '../../../support/paged-list.ts'

t.setTimeout(120_000)

/**
 * Every list that grows answers the same pages (docs/api.md, "Lists and pages").
 * Rows are written with one timestamp, so the order's tie-breaker (the id) is
 * what keeps the pages from repeating or skipping a row. Another company has
 * rows of every kind too: they are never listed nor counted.
 */
const ROWS = 7
const PER_PAGE = 3

async function ids (app: FastifyInstance, text: string, values: unknown[]): Promise<Array<string | number>> {
  return (await app.sql<{ id: string }>({ text, values })).map((row) => row.id)
}

const seedUsers = (app: FastifyInstance, tenantId: string) => ids(app, `INSERT INTO users (id, tenant_id, email, name, role, active, password_hash, created_at, updated_at)
  SELECT gen_random_uuid(), $1, 'paged-' || gen_random_uuid() || '@example.com', 'Same Name', 'user', true, 'x', now(), now()
  FROM generate_series(1, $2::int) RETURNING id`, [tenantId, ROWS - 1])

const seedAddonSources = (app: FastifyInstance, tenantId: string) => ids(app, `INSERT INTO addon_sources (tenant_id, name, repository_url, branch, created_at, updated_at)
  SELECT $1, 'source-' || g, 'https://git.example.com/addons-' || g || '.git', 'main', now(), now()
  FROM generate_series(1, $2::int) g RETURNING id::float8 AS id`, [tenantId, ROWS])

const seedWebhooks = (app: FastifyInstance, tenantId: string) => ids(app, `INSERT INTO webhook_endpoints (id, tenant_id, url, events, sealed_secret, created_at, updated_at)
  SELECT gen_random_uuid(), $1, 'https://hooks.example.com/' || g, '["backup.failed"]', 'sealed', now(), now()
  FROM generate_series(1, $2::int) g RETURNING id`, [tenantId, ROWS])

/** One event delivered (and failed for good, so no job picks it up) several times to an endpoint. */
async function seedDeliveries (app: FastifyInstance, tenantId: string, endpointId: string | number): Promise<Array<string | number>> {
  const [eventId] = await ids(app, `INSERT INTO webhook_events (id, tenant_id, type, title, fanned_out_at, created_at)
    VALUES (gen_random_uuid(), $1, 'backup.failed', 'Seeded', now(), now()) RETURNING id`, [tenantId])
  return ids(app, `INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, status, attempts, last_error, retry_until, created_at, updated_at)
    SELECT gen_random_uuid(), $1, $2, $3, 'failed', 1, 'seeded', now(), now(), now()
    FROM generate_series(1, $4::int) RETURNING id`, [tenantId, endpointId, eventId, ROWS])
}

const seedInvitations = (app: FastifyInstance, tenantId: string) => ids(app, `INSERT INTO invitations (id, tenant_id, email, name, role, token_hash, expires_at, send_count, created_at, updated_at)
  SELECT gen_random_uuid(), $1, 'invited-' || gen_random_uuid() || '@example.com', 'Invited ' || g, 'user', md5(gen_random_uuid()::text), now() + interval '7 days', 1, now(), now()
  FROM generate_series(1, $2::int) g RETURNING id`, [tenantId, ROWS])

const seedBackups = (app: FastifyInstance, tenantId: string, instanceId: number) => ids(app, `INSERT INTO backups (tenant_id, instance_id, state, kind, error, erp_version, created_at, updated_at)
  SELECT $1, $2, 'failed', 'manual', 'seeded', '17.0', now(), now()
  FROM generate_series(1, $3::int) RETURNING id::float8 AS id`, [tenantId, instanceId, ROWS])

const seedUpgrades = (app: FastifyInstance, tenantId: string, instanceId: number) => ids(app, `INSERT INTO instance_upgrades (tenant_id, instance_id, from_version, target_version, mode, state, step, error, created_at, updated_at)
  SELECT $1, $2, '17.0', '18.0', 'test', 'failed', 'done', 'seeded', now(), now()
  FROM generate_series(1, $3::int) RETURNING id::float8 AS id`, [tenantId, instanceId, ROWS])

/** Sessions of another device, used "later" than the caller's own (whose last use moves by the minute): the order holds during the test. */
const seedSessions = (app: FastifyInstance, tenantId: string, userId: string) => ids(app, `INSERT INTO portal_sessions (id, tenant_id, user_id, created_at, expires_at, user_agent)
  SELECT gen_random_uuid(), $1, $2, now() + interval '1 hour', now() + interval '1 day', 'Device ' || g
  FROM generate_series(1, $3::int) g RETURNING id`, [tenantId, userId, ROWS - 1])

/** Grants as the auth server's adapter writes them (test/routes/api/oauth/grants.test.ts): one client and grant each. */
async function seedGrants (app: FastifyInstance, userId: string): Promise<string[]> {
  const grants: string[] = []
  for (let n = 0; n < ROWS; n++) {
    const grantId = `paged-${userId.slice(0, 8)}-${n}`
    const clientId = `client-${grantId}`
    await app.sql({ text: "INSERT INTO oidc_payloads (kind, id, payload, grant_id, expires_at) VALUES ('Client', $1, $2, NULL, NULL)", values: [clientId, JSON.stringify({ client_id: clientId })] })
    await app.sql({
      text: "INSERT INTO oidc_payloads (kind, id, payload, grant_id, expires_at) VALUES ('Grant', $1, $2, NULL, now() + interval '1 day')",
      values: [grantId, JSON.stringify({ accountId: userId, clientId, iat: 1_800_000_000, jti: grantId, kind: 'Grant' })]
    })
    grants.push(grantId)
  }
  return grants
}

const seedCalls = (app: FastifyInstance, tenantId: string, userId: string, grantId: string) => ids(app, `INSERT INTO agent_tool_calls (tenant_id, grant_id, client_id, client_name, user_id, tool, arguments, outcome, duration_ms, created_at)
  SELECT $1, $2::text, 'client-' || $2::text, 'Agent', $3, 'list_instances', '{}', 'ok', 5, now()
  FROM generate_series(1, $4::int) RETURNING id::float8 AS id`, [tenantId, grantId, userId, ROWS])

t.test('each list answers the same pages, and counts only the company\'s rows', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const other = await signup(app)
  const tenant = admin.user.tenant_id
  const instance = await recordInstance(app, tenant)
  const otherInstance = await recordInstance(app, other.user.tenant_id)

  const users = [admin.user.id, ...await seedUsers(app, tenant)]
  await seedUsers(app, other.user.tenant_id)
  const instances = [instance, ...await recordInstances(app, tenant, { count: ROWS - 1 })]
  await recordInstances(app, other.user.tenant_id, { count: 2 })
  const sources = await seedAddonSources(app, tenant)
  await seedAddonSources(app, other.user.tenant_id)
  const webhooks = await seedWebhooks(app, tenant)
  const otherWebhooks = await seedWebhooks(app, other.user.tenant_id)
  const deliveries = await seedDeliveries(app, tenant, webhooks[0]!)
  await seedDeliveries(app, other.user.tenant_id, otherWebhooks[0]!)
  const invitations = await seedInvitations(app, tenant)
  await seedInvitations(app, other.user.tenant_id)
  const backups = await seedBackups(app, tenant, instance)
  await seedBackups(app, other.user.tenant_id, otherInstance)
  const upgrades = await seedUpgrades(app, tenant, instance)
  await seedUpgrades(app, other.user.tenant_id, otherInstance)
  const grants = await seedGrants(app, admin.user.id)
  const otherGrants = await seedGrants(app, other.user.id)
  const calls = await seedCalls(app, tenant, admin.user.id, grants[0]!)
  await seedCalls(app, other.user.tenant_id, other.user.id, otherGrants[0]!)

  const sessions = await seedSessions(app, tenant, admin.user.id)
  await seedSessions(app, other.user.tenant_id, other.user.id)
  const [ownSession] = await ids(app, 'SELECT id FROM portal_sessions WHERE user_id = $1 AND revoked_at IS NULL AND created_at <= now()', [admin.user.id])
  sessions.push(ownSession!)

  await fillTenant(app, tenant, { tickets: ROWS })
  await fillTenant(app, other.user.tenant_id, { tickets: ROWS })
  const tickets = await ids(app, 'SELECT id FROM tickets WHERE tenant_id = $1', [tenant])

  const common = { token: admin.token, perPage: PER_PAGE }
  await checkPagedList(t, app, { ...common, url: '/api/users', key: 'users', expected: users })
  await checkPagedList(t, app, { ...common, url: '/api/instances', key: 'instances', expected: instances })
  await checkPagedList(t, app, { ...common, url: '/api/addon-sources', key: 'addon_sources', expected: sources })
  await checkPagedList(t, app, { ...common, url: '/api/webhooks', key: 'webhooks', expected: webhooks })
  await checkPagedList(t, app, { ...common, url: `/api/webhooks/${webhooks[0]!}/deliveries`, key: 'deliveries', expected: deliveries })
  await checkPagedList(t, app, { ...common, url: '/api/users/invitations', key: 'invitations', expected: invitations, topLevel: 'all' })
  await checkPagedList(t, app, { ...common, url: `/api/instances/${instance}/backups`, key: 'backups', expected: backups, topLevel: 'all' })
  await checkPagedList(t, app, { ...common, url: `/api/instances/${instance}/upgrades`, key: 'upgrades', expected: upgrades })
  await checkPagedList(t, app, { ...common, url: '/api/tickets', key: 'tickets', expected: tickets })
  await checkPagedList(t, app, { ...common, url: '/api/me/sessions', key: 'sessions', expected: sessions })
  await checkPagedList(t, app, { ...common, url: '/api/oauth/grants', key: 'grants', expected: grants })
  await checkPagedList(t, app, { ...common, url: `/api/oauth/grants/${grants[0]!}/calls`, key: 'calls', expected: calls, topLevel: 'total' })
})
