import type { KoaContextWithOIDC } from 'oidc-provider'
import { PAGE_CSP, renderErrorPage } from './views/html.ts'

/** On the consent page, the handoff answers and /oauth/authorize: never framed, never cached. */
export function setPageHeaders (ctx: KoaContextWithOIDC): void {
  ctx.set('X-Frame-Options', 'DENY')
  ctx.set('Content-Security-Policy', PAGE_CSP)
  ctx.set('Cache-Control', 'no-store')
}

/** For the library's own answers on /oauth/authorize (it may render its own forms): framing only. */
export function setFrameHeaders (ctx: KoaContextWithOIDC): void {
  ctx.set('X-Frame-Options', 'DENY')
  if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', "frame-ancestors 'none'")
}

export function sendPage (ctx: KoaContextWithOIDC, status: number, html: string): void {
  setPageHeaders(ctx)
  ctx.status = status
  ctx.type = 'text/html; charset=utf-8'
  ctx.body = html
}

export function sendError (ctx: KoaContextWithOIDC, status: number, title: string, message: string, code?: string): void {
  sendPage(ctx, status, renderErrorPage(title, message, code))
}

export function redirect303 (ctx: KoaContextWithOIDC, location: string): void {
  setPageHeaders(ctx)
  ctx.status = 303
  ctx.redirect(location)
}

export const EXPIRED_MESSAGE = 'This sign-in request has expired or is unknown; start again from your agent.'

export function sendExpired (ctx: KoaContextWithOIDC): void {
  sendError(ctx, 400, 'Sign-in request expired', EXPIRED_MESSAGE)
}

const MAX_FORM_BYTES = 16 * 1024

/** A small urlencoded form body, or undefined when it is not one. */
export async function readForm (ctx: KoaContextWithOIDC): Promise<URLSearchParams | undefined> {
  if (!ctx.is('application/x-www-form-urlencoded')) return undefined
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_FORM_BYTES) return undefined
    chunks.push(chunk)
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

/**
 * The browser that started an authorization gets a cookie naming its
 * transaction (path /oauth, so the handoff sees it). Without it, a login link
 * forwarded to someone else would sign the sender's transaction in as them.
 */
const bindingCookie = (uid: string) => `oauth_tx_${uid}`

export function bindTransaction (ctx: KoaContextWithOIDC, uid: string, ttlSeconds: number): void {
  ctx.cookies.set(bindingCookie(uid), '1', {
    path: '/oauth', httpOnly: true, sameSite: 'lax', secure: ctx.secure === true, maxAge: ttlSeconds * 1000, signed: true
  })
}

export function isBoundTransaction (ctx: KoaContextWithOIDC, uid: string): boolean {
  return ctx.cookies.get(bindingCookie(uid), { signed: true }) === '1'
}

export function clearTransaction (ctx: KoaContextWithOIDC, uid: string): void {
  ctx.cookies.set(bindingCookie(uid), null, { path: '/oauth', signed: true })
}
