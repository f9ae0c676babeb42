/**
 * A browser's cookie handling without a browser: fetch with a cookie jar per
 * origin that honours each cookie's Path (RFC 6265 5.1.4), so a cookie scoped
 * to /oauth is not sent to /login. Redirects are never followed: tests look at
 * each hop. The real-browser run is test/auth-server/browser.test.ts.
 */

export interface StoredCookie { name: string, value: string, path: string }

/** RFC 6265 5.1.4: `/oauth` matches `/oauth` and `/oauth/…`, not `/oauthx`. */
function pathMatches (requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true
  if (!requestPath.startsWith(cookiePath)) return false
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'
}

/** RFC 6265 5.1.4 default-path: the request path up to its last `/`. */
function defaultPath (requestPath: string): string {
  const last = requestPath.lastIndexOf('/')
  return last <= 0 ? '/' : requestPath.slice(0, last)
}

function parseSetCookie (line: string, requestPath: string): { cookie: StoredCookie, expired: boolean } {
  const [pair = '', ...attributes] = line.split(';').map((part) => part.trim())
  const index = pair.indexOf('=')
  const cookie = { name: pair.slice(0, index).trim(), value: pair.slice(index + 1).trim(), path: defaultPath(requestPath) }
  let expired = cookie.value === ''
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=', 2).map((part) => part.trim())
    if (/^path$/i.test(key) && value.startsWith('/')) cookie.path = value
    if (/^max-age$/i.test(key) && Number(value) <= 0) expired = true
    if (/^expires$/i.test(key) && Date.parse(value) < Date.now()) expired = true
  }
  return { cookie, expired }
}

export function createBrowser () {
  /** origin → `name path` → cookie */
  const jars = new Map<string, Map<string, StoredCookie>>()
  const jarOf = (url: string) => {
    const origin = new URL(url).origin
    let jar = jars.get(origin)
    if (jar === undefined) jars.set(origin, jar = new Map())
    return jar
  }

  return {
    /** Every cookie kept for this URL's origin, whatever its path. */
    cookies (url: string): StoredCookie[] {
      return [...jarOf(url).values()]
    },
    /** Forgets the cookies of this URL's origin whose name matches. */
    forget (url: string, name: RegExp): void {
      const jar = jarOf(url)
      for (const [key, cookie] of jar) if (name.test(cookie.name)) jar.delete(key)
    },
    /** One request, no redirect following; Set-Cookie kept. */
    async request (url: string, init: RequestInit = {}): Promise<Response> {
      const jar = jarOf(url)
      const { pathname } = new URL(url)
      const cookie = [...jar.values()]
        .filter((stored) => pathMatches(pathname, stored.path))
        .sort((a, b) => b.path.length - a.path.length)
        .map(({ name, value }) => `${name}=${value}`).join('; ')
      const headers = new Headers(init.headers)
      if (cookie !== '') headers.set('cookie', cookie)
      const response = await fetch(url, { ...init, headers, redirect: 'manual' })
      for (const line of response.headers.getSetCookie()) {
        const { cookie: stored, expired } = parseSetCookie(line, pathname)
        const key = `${stored.name} ${stored.path}`
        if (expired) jar.delete(key)
        else jar.set(key, stored)
      }
      return response
    },
    async submit (url: string, form: Record<string, string> | URLSearchParams): Promise<Response> {
      return await this.request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) })
    }
  }
}

export type Browser = ReturnType<typeof createBrowser>

/** The absolute Location of a redirect (throws, with what came instead, when there is none). */
export function location (response: Response, base: string): string {
  const value = response.headers.get('location')
  if (value === null) throw new Error(`no Location on a ${response.status} from ${response.url}: ${response.headers.get('content-type')}`)
  return new URL(value, base).href
}

export function hiddenField (html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
  if (match === null) throw new Error(`no hidden field ${name}`)
  return match[1] as string
}

/** Where a page's (first) form posts, resolved against the page's URL as a browser does. */
export function formAction (html: string, pageUrl: string): string {
  const match = /<form[^>]*\saction="([^"]*)"/.exec(html)
  if (match === null) throw new Error(`no form on ${pageUrl}`)
  return new URL(match[1] as string, pageUrl).href
}
