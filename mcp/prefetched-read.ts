import type { UserActor } from '../lib/actor.ts'
import type { CallerSql, TenantRead } from '../lib/tenant-sql.ts'

/** A read run ahead of the tool, in the statement that checked the agent (mcp/agent-actor.ts), and its rows. */
export interface PrefetchedRead extends TenantRead {
  rows: unknown[]
}

const sameValues = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((value, i) => String(value) === String(b[i]))

/**
 * `read` for a tool whose first read was run ahead: that same statement with the
 * same values answers the rows already fetched, once; anything else (a second
 * read, another statement) goes to the database as usual.
 */
export function servingPrefetched (read: CallerSql, actor: UserActor, prefetched: PrefetchedRead | undefined): CallerSql {
  if (prefetched === undefined) return read
  let pending: PrefetchedRead | undefined = prefetched
  return async <Row>(statement: TenantRead['statement'], values: unknown[] = []) => {
    if (pending !== undefined && statement.name === pending.statement.name && sameValues(values, pending.values)) {
      const rows = pending.rows as Row[]
      pending = undefined
      return { actor, rows }
    }
    return read<Row>(statement, values)
  }
}
