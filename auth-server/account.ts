import type pg from 'pg'
import { isUuid } from '../lib/uuid.ts'

/** oidc-provider's account: the portal user, read from the `users` table by id. */
export interface Account {
  accountId: string
  claims: () => Promise<{ sub: string, email?: string, name?: string }>
}

export type FindAccount = (ctx: unknown, id: string) => Promise<Account | undefined>

/** An active user of an active company; a deactivated person or a suspended company gets no tokens. */
export const ACTIVE_ACCOUNT = `u.active AND t.status = 'active'`
const FIND_ACCOUNT = {
  name: 'auth-find-account',
  text: `SELECT u.email, u.name FROM users u JOIN tenants t ON t.id = u.tenant_id
    WHERE u.id = $1 AND ${ACTIVE_ACCOUNT}`
}

/** The account of user `id` from its row (email and name), as the library wants it. */
export function accountFrom (id: string, user: { email: string | null, name: string | null }): Account {
  const claims = {
    sub: id,
    ...(user.email !== null && user.email !== '' ? { email: user.email } : {}),
    ...(user.name !== null && user.name !== '' ? { name: user.name } : {})
  }
  return { accountId: id, claims: async () => claims }
}

export function createFindAccount (pool: pg.Pool): FindAccount {
  async function load (id: string): Promise<Account | undefined> {
    const { rows } = await pool.query<{ email: string | null, name: string | null }>({ ...FIND_ACCOUNT, values: [id] })
    const user = rows[0]
    return user === undefined ? undefined : accountFrom(id, user)
  }

  // The library asks twice per token exchange (the account check, then the extra claims) with the
  // same request context: one lookup per request.
  const perRequest = new WeakMap<object, Map<string, Promise<Account | undefined>>>()

  return async (ctx, id) => {
    if (!isUuid(id)) return undefined
    if (typeof ctx !== 'object' || ctx === null) return load(id)
    let lookups = perRequest.get(ctx)
    if (lookups === undefined) perRequest.set(ctx, lookups = new Map())
    let account = lookups.get(id)
    if (account === undefined) lookups.set(id, account = load(id))
    return account
  }
}
