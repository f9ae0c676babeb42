import type pg from 'pg'

export interface Statement {
  /** Naming a statement makes pg prepare it once per connection: for hot paths. */
  name?: string
  text: string
  values: unknown[]
}

/** A timestamptz column as the API shows times: ISO 8601 in UTC with milliseconds, the same text straight from pg and through JSON. */
export const isoUtc = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** Plain parameterised SQL on the ORM's own pool, for hot paths where the ORM's layers cost too much. */
export type Sql = <Row>(statement: Statement) => Promise<Row[]>

export function sqlOnPool (pool: pg.Pool): Sql {
  return async <Row>(statement: Statement) => (await pool.query(statement)).rows as Row[]
}
