import type pg from 'pg'

/** oidc-provider's account: the portal user, read from the `users` table by id. */
export interface Account {
  accountId: string
  claims: () => Promise<{ sub: string, email?: string, name?: string }>
}

export type FindAccount = (ctx: unknown, id: string) => Promise<Account | undefined>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function createFindAccount (pool: pg.Pool): FindAccount {
  return async (_ctx, id) => {
    if (!UUID.test(id)) return undefined
    const { rows } = await pool.query<{ email: string | null, name: string | null }>(
      'SELECT email, name FROM users WHERE id = $1 AND active', [id]
    )
    const user = rows[0]
    if (user === undefined) return undefined
    const claims = {
      sub: id,
      ...(user.email !== null && user.email !== '' ? { email: user.email } : {}),
      ...(user.name !== null && user.name !== '' ? { name: user.name } : {})
    }
    return { accountId: id, claims: async () => claims }
  }
}
