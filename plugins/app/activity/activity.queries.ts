import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { ActorKind } from './activity.entity.ts'

/** Newest first, with optional cursor and filters ($2 before, $3 type, $4 instance, $5 limit). */
export const LIST_ACTIVITIES: TenantStatement = {
  name: 'activity-list',
  text: `
SELECT id, type, title, actor_kind, actor_id, actor_name, target_type, target_id, instance_id, created_at
FROM activities
WHERE tenant_id = $1
  AND ($2::bigint IS NULL OR id < $2)
  AND ($3::text IS NULL OR type = $3)
  AND ($4::bigint IS NULL OR instance_id = $4)
ORDER BY id DESC
LIMIT $5`
}

export interface ActivityRow {
  id: string | number
  type: string
  title: string
  actor_kind: ActorKind
  actor_id: string | null
  actor_name: string
  target_type: string | null
  target_id: string | null
  /** bigint: a string from pg. */
  instance_id: string | number | null
  created_at: Date | string
}
