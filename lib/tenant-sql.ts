import type { Sql } from './sql.ts'

export interface TenantStatement {
  /** Prepared once per connection under this name. */
  name: string
  /** `$1` is always the tenant id, and the statement must filter on it. */
  text: string
}

export type TenantSql = <Row>(statement: TenantStatement, values?: unknown[]) => Promise<Row[]>

const checked = new Set<string>()

/**
 * The raw-SQL side of tenant scoping, for read paths where the ORM's per-query
 * work costs too much (feeds, the dashboard). Like the ORM filter, the tenant
 * is bound by this function, never by the caller's input: `$1` is the tenant id.
 */
export function tenantSql (sql: Sql, tenantId: string): TenantSql {
  return async <Row>(statement: TenantStatement, values: unknown[] = []) => {
    if (!checked.has(statement.name)) {
      if (!/\$1(?!\d)/.test(statement.text)) throw new Error(`Statement ${statement.name} does not use the tenant id ($1)`)
      checked.add(statement.name)
    }
    return sql<Row>({ name: statement.name, text: statement.text, values: [tenantId, ...values] })
  }
}
