import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The consent form's CSRF token: HMAC of the transaction id. Only this server
 * can compute it, and it is only shown on the page of that transaction.
 */
export function createConsentCsrf (key: Buffer) {
  const sign = (uid: string) => createHmac('sha256', key).update(uid, 'utf8').digest('base64url')
  return {
    token: sign,
    verify (uid: string, presented: string | null | undefined): boolean {
      if (typeof presented !== 'string' || presented === '') return false
      const expected = Buffer.from(sign(uid))
      const given = Buffer.from(presented)
      return expected.length === given.length && timingSafeEqual(expected, given)
    }
  }
}

export type ConsentCsrf = ReturnType<typeof createConsentCsrf>
