import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import type { KoaContextWithOIDC } from 'oidc-provider'
import { isAlreadyConsumed } from './adapter.ts'
import { assertStorable } from './payload-values.ts'
import type { GrantHandler } from './built-in-grants.ts'

/**
 * Refresh-token rotation with a grace window.
 *
 * Each rotation records, in the rotated token's row, the id of its successor.
 * A rotated token presented again within `graceSeconds` of its rotation is
 * answered as if its latest live successor had been presented, WITHOUT rotating
 * that successor: a new access token plus the same refresh token the first
 * caller got, so two concurrent refreshes end with one shared refresh token.
 * The adapter reports a token rotated within the window as not consumed, so
 * the library never revokes for it; a request that loses the consume race
 * waits up to `raceWaitMs` for the successor to be recorded, then does the same.
 * After the window, reuse goes to the library, which destroys the token and
 * revokes the whole grant (reuse detection).
 */
export interface RefreshGraceOptions {
  pool: pg.Pool
  graceSeconds: number
  raceWaitMs?: number
}

const withoutRotation = new WeakSet<object>()

/** `rotateRefreshToken`: always rotate, except when answering from the grace window. */
export function rotateRefreshToken (ctx: KoaContextWithOIDC): boolean {
  return !withoutRotation.has(ctx)
}

export function createRefreshGrace (options: RefreshGraceOptions): (original: GrantHandler) => GrantHandler {
  const { pool, graceSeconds } = options
  const raceWaitMs = options.raceWaitMs ?? 3000

  async function rotationOf (id: string): Promise<{ consumed: number | null, successor: string | null } | undefined> {
    assertStorable(id)
    const { rows } = await pool.query<{ consumed: string | null, successor: string | null }>(
      `SELECT extract(epoch FROM consumed_at) AS consumed, payload->>'successor' AS successor
       FROM oidc_payloads WHERE kind = 'RefreshToken' AND id = $1 AND (expires_at IS NULL OR expires_at > now())`,
      [id]
    )
    const row = rows[0]
    return row === undefined ? undefined : { consumed: row.consumed === null ? null : Number(row.consumed), successor: row.successor }
  }

  /** The live successor to answer with, or undefined when the library should decide. */
  async function graceSuccessor (presented: string): Promise<string | undefined> {
    if (graceSeconds <= 0) return undefined
    const deadline = Date.now() + raceWaitMs
    let current = presented
    for (let hops = 0; hops < 20;) {
      const rotation = await rotationOf(current)
      if (rotation === undefined) return undefined
      if (rotation.consumed === null) return current === presented ? undefined : current
      if (Date.now() / 1000 - rotation.consumed > graceSeconds) return undefined
      if (rotation.successor !== null) {
        current = rotation.successor
        hops++
        continue
      }
      // Consumed within the window, successor not recorded yet: that rotation is in flight.
      if (Date.now() > deadline) return undefined
      await sleep(25)
    }
    return undefined
  }

  return (original) => async (ctx) => {
    const presented = ctx.oidc.params.refresh_token
    if (typeof presented !== 'string') return original(ctx)

    const successor = await graceSuccessor(presented)
    if (successor !== undefined) return answerWith(ctx, successor, original)

    try {
      await original(ctx)
    } catch (error) {
      if (!isAlreadyConsumed(error)) throw error
      const raced = await graceSuccessor(presented)
      if (raced === undefined) throw error
      return answerWith(ctx, raced, original)
    }

    const { RotatedRefreshToken: rotated, RefreshToken: issued } = ctx.oidc.entities as Record<string, { jti: string } | undefined>
    if (rotated !== undefined && issued !== undefined && rotated !== issued) {
      await pool.query(
        `UPDATE oidc_payloads SET payload = payload || jsonb_build_object('successor', $2::text)
         WHERE kind = 'RefreshToken' AND id = $1`,
        [rotated.jti, issued.jti]
      )
    }
  }
}

async function answerWith (ctx: KoaContextWithOIDC, successor: string, original: GrantHandler): Promise<void> {
  ctx.oidc.params.refresh_token = successor
  withoutRotation.add(ctx)
  await original(ctx)
}
