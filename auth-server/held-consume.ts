import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * An authorization code's consume, held for the rest of its exchange so that it
 * goes to PostgreSQL in the same statement (one commit) as the refresh token the
 * exchange stores: adapter.ts makes that statement, which stores the token only
 * if the code was still unconsumed, and answers `invalid_grant` otherwise, as
 * the consume itself would have. An exchange that stores no refresh token, or
 * fails after the consume, makes the consume when its grant handler is done
 * (`around`), before anything is answered: a code is never left usable.
 */
export interface HeldConsume {
  /** Runs an authorization_code exchange with room for its consume; makes a consume still held at the end. */
  around: <T>(exchange: () => Promise<T>, consume: (id: string) => Promise<void>) => Promise<T>
  /** Holds the consume of code `id` when called inside `around` (true), else leaves it to the caller (false). */
  hold: (id: string) => boolean
  /** The code whose consume is held, taken: the caller now makes it. */
  take: () => string | undefined
}

export function createHeldConsume (): HeldConsume {
  const exchanges = new AsyncLocalStorage<{ code?: string }>()
  return {
    async around (exchange, consume) {
      const held: { code?: string } = {}
      let result: Awaited<ReturnType<typeof exchange>>
      try {
        result = await exchanges.run(held, exchange)
      } catch (error) {
        // The exchange failed after its code was consumed: the consume stands, as it did before.
        if (held.code !== undefined) await consume(held.code).catch(() => undefined)
        throw error
      }
      if (held.code !== undefined) await consume(held.code)
      return result
    },
    hold (id) {
      const held = exchanges.getStore()
      if (held === undefined || held.code !== undefined) return false
      held.code = id
      return true
    },
    take () {
      const held = exchanges.getStore()
      const code = held?.code
      if (held !== undefined) delete held.code
      return code
    }
  }
}
