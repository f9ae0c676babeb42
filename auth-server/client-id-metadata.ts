import { errors, type KoaContextWithOIDC } from 'oidc-provider'
import { fetchOutbound, OutboundUrlError, type OutboundPolicy } from '../lib/outbound-url.ts'
import { redirectUriProblem } from './client-policy.ts'

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
 * which the MCP authorization specification of 2025-11-25 recommends): a
 * client uses the https URL of a JSON document as its `client_id`, and the
 * server reads the client's metadata there instead of a registration.
 *
 * oidc-provider's `features.clientIdMetadataDocument` does the protocol part;
 * the fetch is ours. `allowFetch` (called on a cache miss) fetches the
 * document through lib/outbound-url.ts and checks it, failing with
 * `invalid_client` and a reason a developer can act on; the library then
 * reads that same document through the `fetch` hook, so there is exactly one
 * request per miss.
 *
 * Time: one fetch is bounded by CLIENT_METADATA_TIMEOUT_SECONDS (default 5 s), below the 10 s the
 * portal's forwarding waits for the auth server: a slow document is refused with `invalid_client`,
 * never mistaken for an outage (502). A request fetches a document at most once: the library looks
 * the client up again to render the error of a refused one, and that second look gets the same
 * refusal without a second wait.
 *
 * Caching: per process, in the library's LRU (100 documents), for as long as
 * the response's Cache-Control allows (`no-store`/`no-cache`/`max-age=0`: not
 * kept; `max-age`: clamped to 30 s to 24 h; neither: 5 min). Not in
 * PostgreSQL: the document is public and cheap to fetch again, each replica
 * converges within the lifetime the publisher chose, and nothing a stranger
 * publishes is written to the shared database.
 */
export const DOCUMENT_MAX_BYTES = 5 * 1024
export const DOCUMENT_TIMEOUT_MS = 5000
const MIN_CACHE_SECONDS = 30
const MAX_CACHE_SECONDS = 24 * 60 * 60
const DEFAULT_CACHE_SECONDS = 5 * 60
/** How long a checked document waits for the library to read it. */
const HANDOVER_MS = 30_000

export interface ClientIdMetadataOptions {
  outbound: OutboundPolicy
  timeoutMs?: number
}

interface CheckedDocument {
  body: string
  cacheSeconds: number
  checkedAt: number
}

export type ClientIdMetadataDocuments = ReturnType<typeof clientIdMetadataDocuments>

export function clientIdMetadataDocuments (options: ClientIdMetadataOptions) {
  const checked = new Map<string, CheckedDocument>()
  const limits = { maxBytes: DOCUMENT_MAX_BYTES, timeoutMs: options.timeoutMs ?? DOCUMENT_TIMEOUT_MS, headers: { accept: 'application/json' } }
  /** Per request (the library's context): the refusal of each document already fetched in it. */
  const refusedIn = new WeakMap<object, Map<string, string>>()

  async function allowFetch (ctx: KoaContextWithOIDC | undefined, clientId: string): Promise<boolean> {
    const earlier = ctx === undefined ? undefined : refusedIn.get(ctx)?.get(clientId)
    if (earlier !== undefined) throw new errors.InvalidClient(earlier)
    try {
      return await checkDocument(clientId)
    } catch (error) {
      if (ctx !== undefined && error instanceof errors.InvalidClient) {
        const refused = refusedIn.get(ctx) ?? new Map<string, string>()
        refused.set(clientId, error.error_description ?? error.message)
        refusedIn.set(ctx, refused)
      }
      throw error
    }
  }

  async function checkDocument (clientId: string): Promise<boolean> {
    const refuse = (reason: string) => new errors.InvalidClient(`client metadata document ${clientId}: ${reason}`)
    let response
    try {
      response = await fetchOutbound(clientId, options.outbound, limits)
    } catch (error) {
      if (error instanceof OutboundUrlError) throw refuse(error.message)
      throw error
    }
    if (response.status !== 200) throw refuse(`answered HTTP ${response.status}, not 200`)
    const body = response.body.toString('utf8')
    const problem = documentProblem(body, clientId)
    if (problem !== undefined) throw refuse(problem)
    const now = Date.now()
    for (const [id, entry] of checked) if (now - entry.checkedAt > HANDOVER_MS) checked.delete(id)
    checked.set(clientId, { body, cacheSeconds: cacheSeconds(response.headers['cache-control'], response.headers.expires), checkedAt: now })
    return true
  }

  /** The library's outbound `fetch`: the document just checked, or else a request through the same guard. */
  async function fetch (url: string): Promise<Response> {
    const handed = checked.get(url)
    if (handed !== undefined) {
      checked.delete(url)
      return new Response(handed.body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': `max-age=${handed.cacheSeconds}` } })
    }
    const response = await fetchOutbound(url, options.outbound, limits)
    const headers = new Headers()
    for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value)
    return new Response(response.body, { status: response.status, headers })
  }

  return {
    feature: { enabled: true, ack: 'draft-02', allowFetch, cacheDuration: { min: 0, max: MAX_CACHE_SECONDS } },
    fetch
  }
}

/** What is wrong with the document for this server, if anything (the library checks the rest of the metadata). */
export function documentProblem (body: string, clientId: string): string | undefined {
  let document: unknown
  try {
    document = JSON.parse(body)
  } catch {
    return 'it is not JSON'
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return 'it is not a JSON object'
  const metadata = document as Record<string, unknown>
  if (metadata.client_id !== clientId) return `its client_id (${JSON.stringify(metadata.client_id)}) must equal its URL`
  if ('client_secret' in metadata || 'client_secret_expires_at' in metadata) return 'it must not contain a client_secret'
  if (metadata.token_endpoint_auth_method !== undefined && metadata.token_endpoint_auth_method !== 'none') {
    return 'token_endpoint_auth_method must be none: only public clients (PKCE) are supported'
  }
  if (!Array.isArray(metadata.redirect_uris) || metadata.redirect_uris.length === 0) return 'redirect_uris must be a non-empty array'
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Seconds to keep a document, from its response's Cache-Control (or Expires). */
export function cacheSeconds (cacheControl: string | undefined, expires?: string): number {
  const directives = (cacheControl ?? '').toLowerCase().split(',').map((part) => part.trim())
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0
  const maxAge = directives.map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1]).find((value) => value !== undefined)
  let seconds: number | undefined = maxAge === undefined ? undefined : Number(maxAge)
  if (seconds === undefined && expires !== undefined) {
    const at = Date.parse(expires)
    if (!Number.isNaN(at)) seconds = Math.floor((at - Date.now()) / 1000)
  }
  if (seconds === undefined) return DEFAULT_CACHE_SECONDS
  if (seconds <= 0) return 0
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds))
}
