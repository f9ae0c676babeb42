import type { FastifyInstance } from 'fastify'
import { bearer } from './accounts.ts'

export const ACCEPT_LINK = /https?:\/\/[^\s"<>]+\/invitation\/accept\?token=([A-Za-z0-9_-]{43})/

/** The token out of an e-mail's accept link. */
export function tokenFromText (text: string): string {
  const token = ACCEPT_LINK.exec(text)?.[1]
  if (token === undefined) throw new Error(`no accept link in:\n${text}`)
  return token
}

let counter = 0

export function inviteBody (overrides: Record<string, unknown> = {}) {
  counter++
  return { email: `invitee-${process.pid}-${counter}@example.com`, name: `Invitee ${counter}`, role: 'user', ...overrides }
}

export function invite (app: FastifyInstance, token: string, body: Record<string, unknown> = inviteBody(), url = '/api/users/invite') {
  return app.inject({ method: 'POST', url, headers: bearer(token), payload: body })
}

export function accept (app: FastifyInstance, token: string, password = 'a brand new password 1', remoteAddress = '10.20.0.1') {
  return app.inject({ method: 'POST', url: '/api/users/invitation/accept', payload: { token, password }, remoteAddress })
}

export function preview (app: FastifyInstance, token: string, remoteAddress = '10.21.0.1') {
  return app.inject({ method: 'GET', url: `/api/users/invitation/${token}`, remoteAddress })
}

/** Polls until `check` returns something other than undefined (or fails after the timeout). */
export async function waitFor<T> (check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Invites someone and reads their token out of the e-mail the test SMTP server received. */
export async function inviteAndReadToken (
  app: FastifyInstance,
  smtp: { nextMail: (options?: { to?: string }) => Promise<{ text: string }> },
  adminToken: string,
  body: Record<string, unknown> = inviteBody()
): Promise<{ invitation: { id: string, email: string, [key: string]: unknown }, token: string }> {
  const response = await invite(app, adminToken, body)
  if (response.statusCode !== 201) throw new Error(`invite failed: ${response.statusCode} ${response.body}`)
  const invitation = response.json().invitation
  return { invitation, token: tokenFromText((await smtp.nextMail({ to: invitation.email })).text) }
}
