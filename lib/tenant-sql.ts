import type { UserActor } from './actor.ts'
import type { Sql } from './sql.ts'

export interface TenantStatement {
  /** Prepared once per connection under this name. */
  name: string
  /** `$1` is always the tenant id, and the statement must filter on it (test/matrix proves each read does). */
  text: string
}

/** A tenant statement with its values (after the tenant's `$1`): a read an entry point may run ahead of the service that makes it. */
export interface TenantRead {
  statement: TenantStatement
  values: unknown[]
}

export type TenantSql = <Row>(statement: TenantStatement, values?: unknown[]) => Promise<Row[]>

/**
 * A read of the caller's tenant that also answers who the caller is: for an
 * authenticated actor (`callerSql`), or for a request whose token is checked
 * in the same statement (`fastify.auth.sessionSql`, one round trip).
 */
export type CallerSql = <Row>(statement: TenantStatement, values?: unknown[]) => Promise<{ actor: UserActor, rows: Row[] }>

/**
 * The raw-SQL side of tenant scoping, for read paths where the ORM's per-query
 * work costs too much (feeds, the dashboard). Like the ORM filter, the tenant
 * is bound by this function, never by the caller's input: `$1` is the tenant id.
 * Whether a statement really filters on it is not something a look at its text
 * can tell (`$1` can sit in a select list or an OR); the cross-tenant read test
 * in test/matrix/access.test.ts proves it for every route, by behaviour.
 */
export function tenantSql (sql: Sql, tenantId: string): TenantSql {
  return async <Row>(statement: TenantStatement, values: unknown[] = []) =>
    sql<Row>({ name: statement.name, text: statement.text, values: [tenantId, ...values] })
}

/** `CallerSql` for an actor already authenticated (MCP tools, jobs acting for a user). */
export function callerSql (sql: Sql, actor: UserActor): CallerSql {
  const query = tenantSql(sql, actor.tenantId)
  return async <Row>(statement: TenantStatement, values?: unknown[]) => ({ actor, rows: await query<Row>(statement, values) })
}
