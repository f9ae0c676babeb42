/**
 * Authorization codes for the token-exchange benchmark, minted inside each
 * measured server process through that provider's own models (a Grant and an
 * AuthorizationCode per code, as the consent step creates them), before the
 * load starts: both servers pay the same minting cost, outside the measurement.
 */
import type Provider from 'oidc-provider'
import { pkcePair } from '../test/auth-server/token-support.ts'

/** Issuer of both servers; the one resource (audience) is `${ISSUER}/api/mcp`, as ours derives it. */
export const ISSUER = 'http://127.0.0.1'
export const RESOURCE = `${ISSUER}/api/mcp`
export const REDIRECT_URI = 'http://127.0.0.1:7777/callback'
/** Most codes one measured run may ask for (memory and minting time stay bounded). */
export const MAX_CODES_PER_RUN = 250_000

export interface MintRequest {
  count: number
  clientId: string
  accountId: string
  /** Longer than warm-up + duration, so that no code expires during the run. */
  lifetimeSeconds: number
}

export interface MintedCode {
  code: string
  verifier: string
}

/** Parallel saves: enough to keep a pg pool busy; the in-memory adapter does not care. */
const CONCURRENCY = 32

export async function mintCodes (provider: Provider, request: MintRequest): Promise<MintedCode[]> {
  if (!Number.isInteger(request.count) || request.count < 1 || request.count > MAX_CODES_PER_RUN) {
    throw new Error(`count must be between 1 and ${MAX_CODES_PER_RUN}, got ${request.count}`)
  }
  const client = await provider.Client.find(request.clientId)
  if (client === undefined) throw new Error(`unknown client ${request.clientId}`)
  // oxlint-disable-next-line unicorn/no-new-array -- sized up front, filled by index below
  const minted: MintedCode[] = new Array(request.count)
  let next = 0
  const worker = async () => {
    while (next < request.count) {
      const index = next++
      minted[index] = await mintOne(provider, client, request)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return minted
}

async function mintOne (provider: Provider, client: unknown, request: MintRequest): Promise<MintedCode> {
  const { accountId, clientId } = request
  const { verifier, challenge } = pkcePair()
  const grant = new provider.Grant({ accountId, clientId })
  grant.addResourceScope(RESOURCE, 'mcp')
  const grantId = await grant.save() as string
  const code = new provider.AuthorizationCode({
    accountId,
    grantId,
    client,
    redirectUri: REDIRECT_URI,
    scope: 'mcp',
    resource: RESOURCE,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    expiresIn: request.lifetimeSeconds
  })
  return { code: await code.save() as string, verifier }
}
