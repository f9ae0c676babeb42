import type pg from 'pg'
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider'
import { withClientCache } from './client-cache.ts'
import type { CodePrefetch } from './code-prefetch.ts'
import { withPrefetch } from './code-lookup.ts'
import { assertStorable, type PayloadRow } from './payload-values.ts'
import type { HeldConsume } from './held-consume.ts'

/**
 * oidc-provider's storage on PostgreSQL: one `oidc_payloads` row per model
 * instance (see oidc-payload.entity.ts), so several auth-server replicas share
 * sessions, codes and tokens. Expired rows are invisible to `find*` and
 * deleted later by `cleanupExpired`.
 */
export type AdapterFactory = (kind: string) => Adapter

const LIVE = '(expires_at IS NULL OR expires_at > now())'

export interface AdapterOptions {
  /**
   * A refresh token rotated less than this many seconds ago is returned as not
   * consumed, so the library never takes its reuse branch (revoke the grant)
   * for it; the atomic consume then fails and refresh-grace.ts answers instead.
   */
  refreshGraceSeconds?: number
  /** How long each process keeps a registered client it has read (client-cache.ts); 0: not at all. */
  clientCacheMs?: number
  /** Where a code's lookup leaves its Grant and account for the rest of the exchange (code-prefetch.ts). */
  prefetch?: CodePrefetch
  /** Where an exchange's code consume waits for its refresh token, to go in one statement (held-consume.ts). */
  heldConsume?: HeldConsume
}

export function createPostgresAdapter (pool: pg.Pool, options: AdapterOptions = {}): AdapterFactory {
  return (kind) => {
    const adapter = withPrefetch(createModelAdapter(pool, kind, kind === 'RefreshToken' ? options.refreshGraceSeconds ?? 0 : 0, options.heldConsume), pool, kind, options.prefetch)
    const clientCacheMs = options.clientCacheMs ?? 60_000
    return kind === 'Client' && clientCacheMs > 0 ? withClientCache(adapter, clientCacheMs) : adapter
  }
}

/**
 * Named (prepared once per connection) statements: a token exchange makes
 * about seven of these, and parsing and planning each again was a large part
 * of PostgreSQL's work per exchange (bench: token scenario).
 */
const findBy = (where: 'id' | 'uid' | 'user_code') => ({
  name: `oidc-find-by-${where}`,
  text: `SELECT payload, CASE WHEN consumed_at > now() - make_interval(secs => $3) THEN NULL
      ELSE extract(epoch FROM consumed_at)::bigint END AS consumed
    FROM oidc_payloads WHERE kind = $1 AND ${where} = $2 AND ${LIVE} LIMIT 1`
})
const FIND = { id: findBy('id'), uid: findBy('uid'), user_code: findBy('user_code') }

const UPSERT = {
  name: 'oidc-upsert',
  // consumed_at is left alone on conflict: re-saving a consumed model must not revive it.
  text: `INSERT INTO oidc_payloads (kind, id, payload, grant_id, uid, user_code, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
      uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`
}
const CONSUME = {
  name: 'oidc-consume',
  text: `UPDATE oidc_payloads SET consumed_at = now()
    WHERE kind = $1 AND id = $2 AND consumed_at IS NULL AND ${LIVE} RETURNING id`
}
/**
 * A held code consume (held-consume.ts) and the refresh token its exchange stores, in one
 * statement: $1-$7 as UPSERT, $8 the code. The token is stored only if this statement consumed
 * the code; `consumed` says whether it did.
 */
const CONSUME_CODE_AND_STORE_TOKEN = {
  name: 'oidc-consume-code-store-token',
  text: `WITH consumed AS (
    UPDATE oidc_payloads SET consumed_at = now()
    WHERE kind = 'AuthorizationCode' AND id = $8 AND consumed_at IS NULL AND ${LIVE} RETURNING id
  ), stored AS (
    INSERT INTO oidc_payloads (kind, id, payload, grant_id, uid, user_code, expires_at)
    SELECT $1::varchar, $2::varchar, $3::jsonb, $4::varchar, $5::varchar, $6::varchar, $7::timestamptz WHERE EXISTS (SELECT 1 FROM consumed)
    ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
      uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM consumed) AS consumed`
}
const DESTROY = { name: 'oidc-destroy', text: 'DELETE FROM oidc_payloads WHERE kind = $1 AND id = $2' }
const REVOKE_BY_GRANT = { name: 'oidc-revoke-by-grant', text: 'DELETE FROM oidc_payloads WHERE kind = $1 AND grant_id = $2' }

function createModelAdapter (pool: pg.Pool, kind: string, graceSeconds: number, held?: HeldConsume): Adapter {
  async function findOne (where: keyof typeof FIND, value: string): Promise<AdapterPayload | undefined> {
    assertStorable(value)
    const { rows } = await pool.query<PayloadRow>({ ...FIND[where], values: [kind, value, graceSeconds] })
    const row = rows[0]
    if (row === undefined) return undefined
    return row.consumed === null ? row.payload : { ...row.payload, consumed: Number(row.consumed) }
  }

  return {
    async upsert (id, payload, expiresIn) {
      assertStorable(id, payload)
      const expiresAt = typeof expiresIn === 'number' && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null
      const values = [kind, id, withoutConsumed(payload), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresAt]
      const code = kind === 'RefreshToken' ? held?.take() : undefined
      if (code === undefined) {
        await pool.query({ ...UPSERT, values })
        return
      }
      const { rows: [row] } = await pool.query<{ consumed: boolean }>({ ...CONSUME_CODE_AND_STORE_TOKEN, values: [...values, code] })
      if (row?.consumed !== true) throw new AlreadyConsumedError('AuthorizationCode')
    },

    find: (id) => findOne('id', id),
    findByUid: (uid) => findOne('uid', uid),
    findByUserCode: (userCode) => findOne('user_code', userCode),

    async consume (id) {
      assertStorable(id)
      if (kind === 'AuthorizationCode' && held?.hold(id) === true) return
      const { rowCount } = await pool.query({ ...CONSUME, values: [kind, id] })
      // The library ignores consume's result: only an exception stops a second redemption.
      if (rowCount !== 1) throw new AlreadyConsumedError(kind)
    },

    async destroy (id) {
      assertStorable(id)
      await pool.query({ ...DESTROY, values: [kind, id] })
    },

    async revokeByGrantId (grantId) {
      assertStorable(grantId)
      await pool.query({ ...REVOKE_BY_GRANT, values: [kind, grantId] })
    }
  }
}

/** `invalid_grant` for the loser of a consume race; refresh-grace.ts recognises it. */
export class AlreadyConsumedError extends errors.InvalidGrant {
  readonly alreadyConsumed = true

  constructor (kind: string) {
    super(`${kind === 'AuthorizationCode' ? 'authorization code' : kind} already consumed`)
    this.name = 'AlreadyConsumedError'
  }
}

export function isAlreadyConsumed (error: unknown): boolean {
  return error instanceof AlreadyConsumedError
}

function withoutConsumed (payload: AdapterPayload): AdapterPayload {
  if (!('consumed' in payload)) return payload
  const { consumed: _consumed, ...rest } = payload
  return rest
}

/**
 * Deletes expired rows of `oidc_payloads` and `oauth_revoked_tokens` in
 * batches (short transactions, no long lock); returns how many were deleted.
 */
export async function cleanupExpired (pool: pg.Pool, options: { batchSize?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1000
  let total = 0
  for (const table of ['oidc_payloads', 'oauth_revoked_tokens']) {
    for (;;) {
      const { rowCount } = await pool.query(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at <= now() LIMIT $1)`,
        [batchSize]
      )
      total += rowCount ?? 0
      if ((rowCount ?? 0) < batchSize) break
    }
  }
  return total
}
