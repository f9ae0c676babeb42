import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor, SystemActor, UserActor } from './actor.ts'
import type { Sql } from './sql.ts'
import { callerSql, type CallerSql } from './tenant-sql.ts'

/**
 * Who a service call acts for and what it reads and writes through: the first
 * parameter of every service method that acts for a caller. A method declares
 * only what it uses (`Pick<CallScope, 'actor' | 'em'>`); callers pass the whole
 * scope of their entry point: `request.scope` (plugins/app/auth), the MCP tool
 * context's `scope` (`userScope`), `systemScope` for jobs.
 */
export interface CallScope<A extends Actor = Actor> {
  actor: A
  /** Scoped to the actor's tenant. */
  em: EntityManager
  /** Reads of the actor's tenant that also answer who the actor is (lib/tenant-sql.ts). */
  read: CallerSql
}

/**
 * An authenticated user's or agent's scope; `em` is taken on first use. `serve` wraps
 * its reads (an MCP call whose first read ran with its token check: mcp/prefetched-read.ts).
 */
export function userScope (sql: Sql, actor: UserActor, em: () => EntityManager, serve?: (read: CallerSql) => CallerSql): CallScope<UserActor> {
  const read = callerSql(sql, actor)
  return { actor, get em () { return em() }, read: serve === undefined ? read : serve(read) }
}

/** A background job's scope: it acts as the system, and has no caller to read as. */
export function systemScope (em: EntityManager, tenantId: string, job: string): Pick<CallScope<SystemActor>, 'actor' | 'em'> {
  return { actor: { kind: 'system', tenantId, job }, em }
}
