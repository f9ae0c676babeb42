import type { FastifyInstance } from 'fastify'

/** Opens a server-rendered page like a browser: its hidden CSRF field and the cookie that goes with it. */
export async function openPage (app: FastifyInstance, url: string) {
  const page = await app.inject({ method: 'GET', url })
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0] ?? ''
  return { page, csrf, cookie }
}

export function postForm (app: FastifyInstance, url: string, fields: Record<string, string>, cookie: string | undefined, remoteAddress = '10.50.0.1') {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }) },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress
  })
}
