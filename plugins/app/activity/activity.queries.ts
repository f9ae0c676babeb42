import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { ActorKind } from './activity.entity.ts'

/**
 * An activity as the API shows it, built by the database: the feed's rows come
 * back ready to send (nested actor, ISO 8601 UTC time) with nothing to map.
 */
export const ACTIVITY_COLUMNS = `id::float8 AS id, title, type,
  CASE WHEN actor_grant_id IS NULL THEN json_build_object('kind', actor_kind, 'id', actor_id, 'name', actor_name)
    ELSE json_build_object('kind', actor_kind, 'id', actor_id, 'name', actor_name, 'calls_url', '/api/oauth/grants/' || actor_grant_id || '/calls') END AS actor,
  target_type, target_id, instance_id::float8 AS instance_id,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`

/**
 * Newest first, with optional cursor and filters ($2 before, $3 type, $4 instance, $5 limit);
 * $6: the only instances the caller may see (an agent bound to some), else null.
 */
export const LIST_ACTIVITIES: TenantStatement = {
  name: 'activity-list',
  text: `
SELECT ${ACTIVITY_COLUMNS}
FROM activities
WHERE tenant_id = $1
  AND ($2::bigint IS NULL OR id < $2)
  AND ($3::text IS NULL OR type = $3)
  AND ($4::bigint IS NULL OR instance_id = $4)
  AND ($6::bigint[] IS NULL OR instance_id = ANY($6))
ORDER BY activities.id DESC
LIMIT $5`
}

export interface ActivityRow {
  /** bigint, read as float8: a number both straight from pg and through JSON (exact below 2^53, as the API's ids). */
  id: number
  title: string
  type: string
  actor: { kind: ActorKind, id: string | null, name: string, calls_url?: string }
  target_type: string | null
  target_id: string | null
  instance_id: number | null
  created_at: string
}
