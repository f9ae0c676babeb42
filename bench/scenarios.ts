/**
 * What gets measured. The baseline is one fixed request against
 * bench/baseline-server.ts; every scenario of our app is compared with it.
 * To benchmark another route, add an entry to `appScenarios`.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { fillTenantWith, type BulkCounts } from '../test/support/data.ts'
import { mcpHeaders, toolCall, toolsList } from './mcp-agent.ts'
import { weekAtHourSteps } from './metrics-samples.ts'

export interface Scenario {
  name: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  headers: Record<string, string>
  body?: string
  /** Another scenario of the same run this one is also compared with (e.g. a tool with its REST route). */
  versus?: string
}

/** A signed-up company admin of our app, obtained through the real signup route. */
export interface Session {
  token: string
  user: { id: string, tenant_id: string }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export function baselineScenario (token: string): Scenario {
  return { name: 'baseline GET /me', method: 'GET', path: '/me', headers: bearer(token) }
}

const LIST_INSTANCES = 'GET /api/instances (50)'
const INSTANCE_STATUS = 'GET /api/instances/:id/status'
/** The read tool measured with and without its audit record (bench/run.ts). */
export const MCP_READ_TOOL = 'POST /api/mcp tools/call get_instance_status'

export function appScenarios (session: Session, tenant: PreparedTenant): Scenario[] {
  const auth = bearer(session.token)
  const home = bearer(tenant.homeToken)
  return [
    { name: INSTANCE_STATUS, method: 'GET', path: `/api/instances/${tenant.instanceId}/status`, headers: auth },
    // The list as a front end asks for it: the first page, 25 (the default).
    { name: 'GET /api/instances (first page, 25)', method: 'GET', path: '/api/instances', headers: auth },
    // All 50 on one page, as the MCP tool it is compared with answers them.
    { name: LIST_INSTANCES, method: 'GET', path: '/api/instances?per_page=50', headers: auth },
    {
      name: 'POST /api/mcp tools/call list_instances (50)',
      method: 'POST',
      path: '/api/mcp',
      headers: mcpHeaders(tenant.agentToken),
      body: toolCall('list_instances'),
      versus: LIST_INSTANCES
    },
    {
      name: MCP_READ_TOOL,
      method: 'POST',
      path: '/api/mcp',
      headers: mcpHeaders(tenant.agentToken),
      body: toolCall('get_instance_status', { instance_id: Number(tenant.instanceId) }),
      versus: INSTANCE_STATUS
    },
    // No REST route lists tools: beside the floor, it is read against the REST list the list tool is compared with.
    { name: 'POST /api/mcp tools/list', method: 'POST', path: '/api/mcp', headers: mcpHeaders(tenant.agentToken), body: toolsList(), versus: LIST_INSTANCES },
    { name: 'GET /api/me', method: 'GET', path: '/api/me', headers: auth },
    { name: 'GET /api/dashboard', method: 'GET', path: '/api/dashboard', headers: home },
    { name: 'GET /api/activity', method: 'GET', path: '/api/activity?limit=20', headers: home },
    { name: 'GET /api/subscription/recommendation', method: 'GET', path: '/api/subscription/recommendation?users=12&storage=20&billing_cycle=yearly', headers: auth },
    // The instance has a week of 1-minute samples and one taken just now (bench/metrics-samples.ts).
    { name: 'GET /api/instances/:id/metrics/history (week, 1h steps)', method: 'GET', path: `/api/instances/${tenant.instanceId}/metrics/history?${weekAtHourSteps()}`, headers: auth },
    { name: 'GET /api/instances/:id/modules (10)', method: 'GET', path: `/api/instances/${tenant.instanceId}/modules`, headers: auth },
    { name: 'GET /api/instances/:id/metrics (recent sample)', method: 'GET', path: `/api/instances/${tenant.instanceId}/metrics`, headers: auth }
  ]
}

/** The names of `appScenarios`, known before there is a session (for BENCH_ONLY). */
export function appScenarioNames (): string[] {
  return appScenarios({ token: '', user: { id: '', tenant_id: '' } }, { instanceId: ':id', agentToken: '', homeToken: '' }).map((scenario) => scenario.name)
}

export interface PreparedTenant {
  /** One of its instances, for the status scenario. */
  instanceId: string
  /** An OAuth access token of an agent connected to the admin, for /api/mcp (bench/mcp-agent.ts). */
  agentToken: string
  /** The admin of the home-screen company (`HOME_COMPANY`), for the dashboard and the feed. */
  homeToken: string
}

/** The company of the instance scenarios: 10 users, 200 activities and 50 instances. */
export const INSTANCES_COMPANY = { users: 9, activities: 200, instances: 50 }

/** The company of the home-screen scenarios (dashboard, activity feed): 10 users, 500 activities and 10 instances. */
export const HOME_COMPANY = { users: 9, activities: 500, instances: 10 }

/**
 * Fills a signed-up company (its admin is the first user) with recorded rows
 * (no backend is asked) and answers one of its instances.
 */
export async function prepareTenant (databaseUrl: string, session: Session, counts: BulkCounts): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await fillTenantWith((text, values) => client.query(text, values), session.user.tenant_id, counts)
    const { rows } = await client.query<{ id: string }>('SELECT id FROM instances WHERE tenant_id = $1 LIMIT 1', [session.user.tenant_id])
    const instanceId = rows[0]!.id
    // Ten catalog modules assigned to it, half installed, for the instance-modules scenario.
    await client.query(`INSERT INTO instance_modules (tenant_id, instance_id, module_id, state, installed_at, created_at, updated_at)
      SELECT $1, $2, m.id, CASE WHEN m.n % 2 = 0 THEN 'installed' ELSE 'queued' END, CASE WHEN m.n % 2 = 0 THEN now() END, now(), now()
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM erp_modules ORDER BY id LIMIT 10) m`, [session.user.tenant_id, instanceId])
    return instanceId
  } finally {
    await client.end()
  }
}

/** One real signup (signup is rate-limited per IP, 10 an hour: a run makes two). */
export async function signup (baseUrl: string): Promise<Session> {
  const suffix = randomBytes(4).toString('hex')
  const response = await fetch(`${baseUrl}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      company: `Bench Company ${suffix}`,
      subdomain: `bench-${suffix}`,
      name: 'Bench Admin',
      email: `bench-${suffix}@example.com`,
      password: 'correct horse battery staple'
    })
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`signup answered ${response.status}: ${text}`)
  return JSON.parse(text) as Session
}

/** One request before the load, so a broken scenario fails with its answer shown. */
export async function preflight (baseUrl: string, scenario: Scenario): Promise<void> {
  const init: RequestInit = { method: scenario.method, headers: scenario.headers }
  if (scenario.body !== undefined) init.body = scenario.body
  const response = await fetch(`${baseUrl}${scenario.path}`, init)
  const text = await response.text()
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${scenario.name}: preflight answered ${response.status}: ${text.slice(0, 500)}`)
  }
}
