/**
 * Reads of the auth server's store (oidc_payloads, written by its adapter).
 * A Grant's payload holds `accountId` (the portal user id), `clientId` and
 * `iat`; a Client's holds `client_name`; tokens carry the grant in `grant_id`.
 */
const grantsOf = (user: string) => `g.id, g.payload->>'clientId' AS client_id, c.payload->>'client_name' AS client_name,
  to_timestamp((g.payload->>'iat')::double precision) AS created_at,
  (SELECT to_timestamp(max((x.payload->>'iat')::double precision)) FROM oidc_payloads x
    WHERE x.grant_id = g.id AND x.kind IN ('AccessToken', 'RefreshToken')) AS last_used_at
FROM oidc_payloads g
LEFT JOIN oidc_payloads c ON c.kind = 'Client' AND c.id = g.payload->>'clientId'
WHERE g.kind = 'Grant' AND g.payload->>'accountId' = ${user} AND (g.expires_at IS NULL OR g.expires_at > now())`

export const LIST_GRANTS = {
  name: 'oauth-grants-list',
  text: `SELECT ${grantsOf('$1')} ORDER BY created_at DESC, g.id`
}

/** For the ORM's connection (`?` placeholders): user id, grant id. */
export const FIND_GRANT = `SELECT ${grantsOf('?')} AND g.id = ? FOR UPDATE OF g`

/** What oidc-provider's revokeByGrantId removes, plus the Grant itself. */
export const DELETE_GRANT = `DELETE FROM oidc_payloads WHERE grant_id = ? OR (kind = 'Grant' AND id = ?)`

export interface GrantRow {
  id: string
  client_id: string | null
  client_name: string | null
  created_at: Date | string | null
  last_used_at: Date | string | null
}
