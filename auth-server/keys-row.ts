import type pg from 'pg'
import type { Sealer } from './keys-seal.ts'

const NAME = 'signing-keys'
const WHERE = 'The signing keys in oidc_signing_keys'

/**
 * The sealed signing keys, one row in PostgreSQL (signing-key-set.entity.ts), so every replica of
 * the authorization server signs with the same key and publishes the same JWKS.
 */
export interface SealedRow {
  read: () => Promise<unknown | undefined>
  /** Inserts only if there is no row yet; false when another process won. */
  create: (content: unknown) => Promise<boolean>
  /** Reads, changes and writes in one transaction, the row locked: two operators cannot interleave. */
  update: <T>(change: (content: unknown) => { content: unknown, result: T }) => Promise<T>
}

export function createSealedRow (pool: pg.Pool, sealer: Sealer): SealedRow {
  return {
    async read () {
      const { rows } = await pool.query<{ sealed: string }>('SELECT sealed FROM oidc_signing_keys WHERE name = $1', [NAME])
      return rows[0] === undefined ? undefined : sealer.open(rows[0].sealed, WHERE)
    },

    async create (content) {
      const { rowCount } = await pool.query(
        'INSERT INTO oidc_signing_keys (name, sealed, updated_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO NOTHING',
        [NAME, sealer.seal(content)])
      return rowCount === 1
    },

    async update (change) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const { rows } = await client.query<{ sealed: string }>('SELECT sealed FROM oidc_signing_keys WHERE name = $1 FOR UPDATE', [NAME])
        if (rows[0] === undefined) throw new Error('There are no signing keys yet: start the authorization server once, or run `npm run auth:keys -- list`')
        const { content, result } = change(sealer.open(rows[0].sealed, WHERE))
        await client.query('UPDATE oidc_signing_keys SET sealed = $2, updated_at = now() WHERE name = $1', [NAME, sealer.seal(content)])
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      } finally {
        client.release()
      }
    }
  }
}
