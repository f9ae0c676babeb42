import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import { defineError } from '../lib/errors.ts'

/** The keys could not be fetched: the token may be fine, so the client is told to retry, not to sign in again. */
export const SigningKeysUnavailable = defineError('AUTH_KEYS_UNAVAILABLE', 'The authorization server\'s signing keys cannot be fetched right now; try again shortly', 503)

export interface HttpCachedJwksOptions {
  /** Least time between two fetches caused by tokens naming a key we do not have. */
  cooldownMs: number
  timeoutMs?: number
  /** Freshness when the answer says nothing (no Cache-Control max-age, no Expires). */
  defaultMaxAgeMs?: number
  now?: () => number
}

/** Freshness is clamped: a server saying `no-cache` is still asked at most this often, and never trusted for longer than an hour. */
const MIN_FRESH_MS = 5000
const MAX_FRESH_MS = 60 * 60_000

interface Cached {
  keys: JWTVerifyGetKey
  etag: string | undefined
  freshUntil: number
}

/**
 * The headers of a revalidation. fetch() adds `Cache-Control: no-cache` to a conditional
 * request unless one is given, and a server honouring that never answers 304:
 * `max-age=0` asks for revalidation, which is what this is.
 */
export function revalidation (etag: string): Record<string, string> {
  return { 'if-none-match': etag, 'cache-control': 'max-age=0' }
}

/** How long an answer stays fresh, from its Cache-Control (max-age minus Age), Expires, or the default. */
export function freshnessMs (headers: Headers, now: number, fallbackMs: number): number {
  const cacheControl = headers.get('cache-control') ?? ''
  let ms: number
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) {
    ms = 0
  } else {
    const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)?.[1]
    const expires = headers.get('expires')
    if (maxAge !== undefined) ms = (Number(maxAge) - Number(headers.get('age') ?? 0)) * 1000
    else if (expires !== null && !Number.isNaN(Date.parse(expires))) ms = Date.parse(expires) - now
    else ms = fallbackMs
  }
  return Math.min(MAX_FRESH_MS, Math.max(MIN_FRESH_MS, ms))
}

/**
 * A remote JWKS cached as its HTTP answer says: fresh for `max-age`, then
 * revalidated with `If-None-Match` (a 304 keeps the keys and renews their
 * freshness). A token naming a key not in the set fetches it again at once, at
 * most once per `cooldownMs` after the last fetch, so a key the authorization server started
 * publishing (rotation, on any replica) is picked up without waiting for
 * max-age, and made-up `kid`s cannot flood it. While the server does not
 * answer, keys we already have are used (stale-if-error); with none, 503.
 */
export function createHttpCachedJwks (url: () => Promise<URL>, options: HttpCachedJwksOptions): JWTVerifyGetKey {
  const now = options.now ?? Date.now
  const defaultMaxAgeMs = options.defaultMaxAgeMs ?? 5 * 60_000
  let cached: Cached | undefined
  let cachedFor: string | undefined
  let inFlight: Promise<Cached> | undefined
  let lastFetch = -Infinity

  async function fetchKeys (location: URL): Promise<Cached> {
    lastFetch = now()
    const previous = cachedFor === location.href ? cached : undefined
    const headers = { accept: 'application/json', ...(previous?.etag === undefined ? {} : revalidation(previous.etag)) }
    let response: Response
    try {
      response = await fetch(location, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 5000), redirect: 'error' })
    } catch {
      throw SigningKeysUnavailable()
    }
    const at = now()
    if (response.status === 304 && previous !== undefined) {
      return { ...previous, etag: response.headers.get('etag') ?? previous.etag, freshUntil: at + freshnessMs(response.headers, at, defaultMaxAgeMs) }
    }
    if (response.status !== 200) throw SigningKeysUnavailable()
    let set: JSONWebKeySet
    try {
      set = await response.json() as JSONWebKeySet
      if (!Array.isArray(set.keys)) throw new TypeError('no keys')
    } catch {
      throw SigningKeysUnavailable()
    }
    return { keys: createLocalJWKSet(set), etag: response.headers.get('etag') ?? undefined, freshUntil: at + freshnessMs(response.headers, at, defaultMaxAgeMs) }
  }

  /** One fetch at a time; callers arriving meanwhile share it. A failure keeps what we had (stale-if-error) if we had anything. */
  async function refresh (location: URL): Promise<Cached> {
    inFlight ??= fetchKeys(location).then((fresh) => {
      cached = fresh
      cachedFor = location.href
      return fresh
    }, (error: unknown) => {
      if (cached === undefined || cachedFor !== location.href) throw error
      // Keep serving what we have, and ask again only after a short while, not on every request.
      cached = { ...cached, freshUntil: now() + MIN_FRESH_MS }
      return cached
    }).finally(() => { inFlight = undefined })
    return inFlight
  }

  return async (header, token) => {
    let location: URL
    try {
      location = await url()
    } catch {
      throw SigningKeysUnavailable()
    }
    let current = cached !== undefined && cachedFor === location.href && now() < cached.freshUntil ? cached : await refresh(location)
    try {
      return await current.keys(header, token)
    } catch (error) {
      // The cooldown counts from the last fetch of any kind: keys fetched a moment ago are the latest.
      if (!(error instanceof errors.JWKSNoMatchingKey) || now() - lastFetch < options.cooldownMs) throw error
      current = await refresh(location)
      return current.keys(header, token)
    }
  }
}
