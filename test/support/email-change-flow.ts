import type { FastifyInstance } from 'fastify'
import { bearer } from './accounts.ts'

export const CONFIRM_EMAIL_LINK = /https?:\/\/[^\s"<>]+\/email\/confirm\?token=([A-Za-z0-9_-]{43})/

/** The token out of the confirmation e-mail's link. */
export function confirmTokenFromText (text: string): string {
  const token = CONFIRM_EMAIL_LINK.exec(text)?.[1]
  if (token === undefined) throw new Error(`no confirmation link in:\n${text}`)
  return token
}

export function requestEmailChange (app: FastifyInstance, session: string, body: { new_email: string, password: string }, remoteAddress = '10.60.0.1') {
  return app.inject({ method: 'POST', url: '/api/me/email', headers: bearer(session), payload: body, remoteAddress })
}

export function confirmEmailChange (app: FastifyInstance, token: string, remoteAddress = '10.61.0.1') {
  return app.inject({ method: 'POST', url: '/api/email/confirm', payload: { token }, remoteAddress })
}
