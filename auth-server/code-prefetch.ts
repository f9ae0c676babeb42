import type { AdapterPayload } from 'oidc-provider'
import type { Account } from './account.ts'

/**
 * What a token request reads right after its authorization code: the code's
 * Grant and its account (oidc-provider's authorization_code grant finds the
 * code, then `Grant.find(code.grantId)`, then the account). adapter.ts reads
 * all three in the code's one statement and leaves the other two here, so an
 * exchange makes three round trips to PostgreSQL instead of five.
 *
 * An entry is good for `ttlMs` (default 1 s) after the code was read: the
 * library asks within milliseconds; a grant revoked or a person deactivated in
 * that window is seen by the next request, as it would be had the revocation
 * landed a moment later. Only reads of this process's code lookups are kept.
 */
export interface CodePrefetch {
  keepGrant: (id: string, payload: AdapterPayload | undefined) => void
  keepAccount: (id: string, account: Account | undefined) => void
  /** `found: false` when nothing is kept for the id (then read it from the database). */
  grant: (id: string) => { found: boolean, payload?: AdapterPayload }
  account: (id: string) => { found: boolean, account?: Account }
}

interface Entry<T> { value: T, until: number }

function shortLived<T> (ttlMs: number, maxEntries: number) {
  const entries = new Map<string, Entry<T>>()
  const sweep = (now: number) => {
    for (const [key, entry] of entries) {
      if (entry.until > now && entries.size < maxEntries) break
      entries.delete(key)
    }
  }
  return {
    keep (id: string, value: T) {
      const now = Date.now()
      sweep(now)
      entries.delete(id)
      entries.set(id, { value, until: now + ttlMs })
    },
    read (id: string): { found: boolean, value?: T } {
      const entry = entries.get(id)
      if (entry === undefined) return { found: false }
      if (entry.until <= Date.now()) {
        entries.delete(id)
        return { found: false }
      }
      return { found: true, value: entry.value }
    }
  }
}

export function createCodePrefetch (ttlMs = 1000, maxEntries = 10_000): CodePrefetch {
  const grants = shortLived<AdapterPayload | undefined>(ttlMs, maxEntries)
  const accounts = shortLived<Account | undefined>(ttlMs, maxEntries)
  return {
    keepGrant: (id, payload) => grants.keep(id, payload === undefined ? undefined : { ...payload }),
    keepAccount: (id, account) => accounts.keep(id, account),
    grant: (id) => {
      const { found, value } = grants.read(id)
      return found ? { found, ...(value === undefined ? {} : { payload: { ...value } }) } : { found }
    },
    account: (id) => {
      const { found, value } = accounts.read(id)
      return found ? { found, ...(value === undefined ? {} : { account: value }) } : { found }
    }
  }
}
