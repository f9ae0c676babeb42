/**
 * Whether a module install (or uninstall) of ours is running on an instance now: one of its
 * assignments is `installing` or `uninstalling` (the jobs set it, with the time) and has been for
 * less than the install's bound (ERP_INSTALL_TIMEOUT_SECONDS). While Odoo reloads its registry at
 * an install or an uninstall it answers
 * nothing, its health check fails, and the backend shows the instance failing: the reconciler
 * asks this before it records an `error` that is our own operation (a stale row past the bound
 * protects nothing).
 */
import type { Sql } from '../../../lib/sql.ts'

const INSTALLING = `
SELECT 1 AS installing FROM instance_modules
WHERE instance_id = $1::bigint AND state IN ('installing', 'uninstalling') AND updated_at > now() - make_interval(secs => $2::int)
LIMIT 1`

export function createInstallInProgress ({ sql, boundSeconds }: { sql: Sql, boundSeconds: number }) {
  return async function installInProgress (instanceId: number): Promise<boolean> {
    const rows = await sql<{ installing: number }>({ text: INSTALLING, values: [instanceId, boundSeconds] })
    return rows.length > 0
  }
}
