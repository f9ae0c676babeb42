import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

const COOKIE = 'login_csrf'

/**
 * Double-submit CSRF protection for the login form, without a cookie library:
 * the page sets a random nonce in an HttpOnly cookie and puts HMAC(key, nonce)
 * in a hidden field. Another site can make a browser send the cookie but can
 * neither read it nor compute the field, and it cannot plant a cookie of its
 * own choosing that matches a field it does not know the key for. The account
 * pages (invitation, password) use the same protection under their own path,
 * cookie name and key.
 */
export function createLoginCsrf ({ key, secure, path = '/login', cookie = COOKIE }: { key: Buffer, secure: boolean, path?: string, cookie?: string }) {
  const sign = (nonce: string) => createHmac('sha256', key).update(nonce, 'utf8').digest('base64url')

  return {
    /** A fresh pair: the hidden field's value and the Set-Cookie header that goes with it. */
    issue (): { field: string, setCookie: string } {
      const nonce = randomBytes(32).toString('base64url')
      const attributes = [`Path=${path}`, 'HttpOnly', 'SameSite=Strict', 'Max-Age=3600', ...(secure ? ['Secure'] : [])]
      return { field: sign(nonce), setCookie: [`${cookie}=${nonce}`, ...attributes].join('; ') }
    },

    verify (cookieHeader: string | undefined, field: string | undefined): boolean {
      const nonce = cookieValue(cookieHeader, cookie)
      if (nonce === undefined || field === undefined || field === '') return false
      const expected = Buffer.from(sign(nonce))
      const presented = Buffer.from(field)
      return expected.length === presented.length && timingSafeEqual(expected, presented)
    }
  }
}

function cookieValue (header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) return rest.join('=')
  }
  return undefined
}

export type LoginCsrf = ReturnType<typeof createLoginCsrf>
