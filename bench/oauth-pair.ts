/**
 * The token-exchange pair: the authorization-code exchange on our auth server
 * (bench/oauth-ours-server.ts) between two runs of bare oidc-provider with its
 * in-memory adapter (bench/oauth-baseline-server.ts); the ratio is against the
 * mean of those two runs, as for the other scenarios.
 *
 * Before each measured run the server being measured mints, through its own
 * provider, a fresh batch of codes sized from BENCH_TOKEN_RPS; one is redeemed
 * as a preflight, the rest feed the load, one code per request.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Result } from 'autocannon'
import { register } from '../test/auth-server/helpers.ts'
import type { RunningServer } from './child-process.ts'
import { MAX_CODES_PER_RUN, REDIRECT_URI, type MintedCode, type MintRequest } from './oauth-codes.ts'
import { codesNeeded, loadWithCodes, preflightExchange, type LoadSettings, type TokenEndpoint } from './oauth-load.ts'
import { toMeasurement, type Measurement } from './report.ts'
import type { Scenario } from './scenarios.ts'

export type WithServer = <T>(file: string, env: Record<string, string>, use: (server: RunningServer) => Promise<T>) => Promise<T>

export interface TokenPairOptions {
  withServer: WithServer
  childEnv: Record<string, string>
  databaseUrl: string
  settings: LoadSettings
  /** Req/s the batch of codes is sized for (twice this over warm-up + duration). */
  expectedRps: number
  log: (line: string) => void
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
export const tokenScenario: Scenario = { name: 'POST /oauth/token (authorization_code)', method: 'POST', path: '/oauth/token', headers: FORM }
const tokenBaseline: Scenario = { name: 'baseline POST /token (bare oidc-provider)', method: 'POST', path: '/token', headers: FORM }
/** Codes outlive the run by this much: none expires while in use. */
const LIFETIME_MARGIN_SECONDS = 120

export async function measureTokenExchange (options: TokenPairOptions): Promise<Measurement[]> {
  const { settings, log } = options
  const accountId = await createPortalUser(options.databaseUrl)
  const count = codesNeeded(settings, options.expectedRps, MAX_CODES_PER_RUN - 1)

  const run = async (server: RunningServer, endpoint: TokenEndpoint, scenario: Scenario): Promise<Result> => {
    const started = Date.now()
    const codes = await server.call<MintedCode[]>('mint', {
      count: count + 1,
      clientId: endpoint.clientId,
      accountId,
      lifetimeSeconds: settings.warmupSeconds + settings.durationSeconds + LIFETIME_MARGIN_SECONDS
    } satisfies MintRequest)
    log(`${scenario.name}: ${codes.length} codes minted in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    await preflightExchange(endpoint, codes[0]!)
    const warmup = settings.warmupSeconds > 0 ? `${settings.warmupSeconds} s warm-up, then ` : ''
    log(`${scenario.name}: ${warmup}${settings.durationSeconds} s at ${settings.connections} connections`)
    return loadWithCodes(endpoint, codes.slice(1), settings)
  }

  return options.withServer('./oauth-ours-server.ts', options.childEnv, async (ours) => {
    const oursEndpoint: TokenEndpoint = { url: ours.url, path: tokenScenario.path, clientId: await registerClient(ours.url) }
    return options.withServer('./oauth-baseline-server.ts', {}, async (bare) => {
      const bareEndpoint: TokenEndpoint = { url: bare.url, path: tokenBaseline.path, clientId: bare.ready.clientId ?? '' }
      const baselineRun = async (label: string) => {
        const scenario = { ...tokenBaseline, name: `${tokenBaseline.name} (${label})` }
        return toMeasurement('baseline', scenario, await run(bare, bareEndpoint, scenario))
      }
      const first = await baselineRun('first')
      const result = await run(ours, oursEndpoint, tokenScenario)
      const after = await baselineRun(`after ${tokenScenario.name}`)
      const measured = toMeasurement('ours', tokenScenario, result, {
        name: tokenBaseline.name,
        requestsPerSecond: (first.requestsPerSecond + after.requestsPerSecond) / 2
      })
      return [first, measured, after]
    })
  })
}

/** An agent's client, registered through our real registration route. */
export async function registerClient (url: string, clientName = 'Bench agent'): Promise<string> {
  const { status, body } = await register(url, { redirect_uris: [REDIRECT_URI], client_name: clientName })
  if (status !== 201 || typeof body.client_id !== 'string') throw new Error(`client registration answered ${status}: ${JSON.stringify(body)}`)
  return body.client_id
}

/** A portal user (and its company) in the bench database: the account our server looks up for every exchange. */
async function createPortalUser (databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const suffix = randomBytes(4).toString('hex')
    const { rows: [tenant] } = await client.query<{ id: string }>(
      `INSERT INTO tenants (id, name, subdomain, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, now(), now()) RETURNING id`, [`Bench OAuth ${suffix}`, `bench-oauth-${suffix}`])
    const { rows: [user] } = await client.query<{ id: string }>(
      `INSERT INTO users (id, tenant_id, email, name, role, active, password_hash, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 'Bench Agent Owner', 'admin', true, 'x', now(), now()) RETURNING id`,
      [tenant!.id, `bench-oauth-${suffix}@example.com`])
    return user!.id
  } finally {
    await client.end()
  }
}
