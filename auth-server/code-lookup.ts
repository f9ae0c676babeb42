import type pg from 'pg'
import type { Adapter, AdapterPayload } from 'oidc-provider'
import { UUID_PATTERN, isUuid } from '../lib/uuid.ts'
import { ACTIVE_ACCOUNT, accountFrom } from './account.ts'
import type { CodePrefetch } from './code-prefetch.ts'
import { assertStorable, withConsumed, type PayloadRow } from './payload-values.ts'

/**
 * An authorization code with what its exchange reads next: its live Grant
 * (`grant_id`) and its account when active (account.ts's rule). Codes are
 * never read during the refresh grace, so `consumed` is the plain epoch.
 */
const FIND_CODE_WITH_GRANT_AND_ACCOUNT = {
  name: 'oidc-find-code-with-grant-and-account',
  text: `SELECT c.payload, extract(epoch FROM c.consumed_at)::bigint AS consumed,
      g.payload AS grant_payload, extract(epoch FROM g.consumed_at)::bigint AS grant_consumed,
      u.id IS NOT NULL AS account_found, u.email AS account_email, u.name AS account_name
    FROM oidc_payloads c
    LEFT JOIN oidc_payloads g ON g.kind = 'Grant' AND g.id = c.grant_id AND (g.expires_at IS NULL OR g.expires_at > now())
    LEFT JOIN LATERAL (SELECT u.id, u.email, u.name FROM users u JOIN tenants t ON t.id = u.tenant_id
      WHERE u.id = CASE WHEN c.payload->>'accountId' ~* '${UUID_PATTERN.source}' THEN (c.payload->>'accountId')::uuid END
        AND ${ACTIVE_ACCOUNT}) u ON true
    WHERE c.kind = 'AuthorizationCode' AND c.id = $1 AND (c.expires_at IS NULL OR c.expires_at > now()) LIMIT 1`
}

interface CodeRow extends PayloadRow {
  grant_payload: AdapterPayload | null
  grant_consumed: string | null
  account_found: boolean
  account_email: string | null
  account_name: string | null
}

/**
 * With a prefetch: finding an AuthorizationCode also reads its Grant and account
 * in the same statement and keeps them there; finding a Grant looks there first.
 */
export function withPrefetch (adapter: Adapter, pool: pg.Pool, kind: string, prefetch: CodePrefetch | undefined): Adapter {
  if (prefetch === undefined) return adapter
  if (kind === 'Grant') {
    return {
      ...adapter,
      async find (id) {
        const kept = prefetch.grant(id)
        return kept.found ? kept.payload : adapter.find(id)
      }
    }
  }
  if (kind !== 'AuthorizationCode') return adapter
  return {
    ...adapter,
    async find (id) {
      assertStorable(id)
      const { rows: [row] } = await pool.query<CodeRow>({ ...FIND_CODE_WITH_GRANT_AND_ACCOUNT, values: [id] })
      if (row === undefined) return undefined
      const { grantId, accountId } = row.payload
      if (typeof grantId === 'string') {
        prefetch.keepGrant(grantId, row.grant_payload === null ? undefined : withConsumed(row.grant_payload, row.grant_consumed))
      }
      if (typeof accountId === 'string' && isUuid(accountId)) {
        prefetch.keepAccount(accountId, row.account_found ? accountFrom(accountId, { email: row.account_email, name: row.account_name }) : undefined)
      }
      return withConsumed(row.payload, row.consumed)
    }
  }
}
