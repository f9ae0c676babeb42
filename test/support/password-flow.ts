import type { FastifyInstance } from 'fastify'

export const RESET_LINK = /https?:\/\/[^\s"<>]+\/password\/reset\?token=([A-Za-z0-9_-]{43})/

/** The token out of a reset e-mail's link. */
export function resetTokenFromText (text: string): string {
  const token = RESET_LINK.exec(text)?.[1]
  if (token === undefined) throw new Error(`no reset link in:\n${text}`)
  return token
}

export function forgot (app: FastifyInstance, email: string, remoteAddress = '10.30.0.1') {
  return app.inject({ method: 'POST', url: '/api/password/forgot', payload: { email }, remoteAddress })
}

export function resetPassword (app: FastifyInstance, token: string, password: string, remoteAddress = '10.31.0.1') {
  return app.inject({ method: 'POST', url: '/api/password/reset', payload: { token, password }, remoteAddress })
}

export function login (app: FastifyInstance, email: string, password: string, remoteAddress = '10.32.0.1') {
  return app.inject({ method: 'POST', url: '/api/login', payload: { login: email, password }, remoteAddress })
}

/** A grant of `userId` as the auth server's adapter writes it, with a refresh token under it. */
export async function connectAgent (app: FastifyInstance, userId: string, grantId: string): Promise<void> {
  const insert = (kind: string, id: string, payload: object, grant: string | null) => app.sql({
    text: "INSERT INTO oidc_payloads (kind, id, payload, grant_id, expires_at) VALUES ($1, $2, $3, $4, now() + interval '1 day')",
    values: [kind, id, JSON.stringify(payload), grant]
  })
  await insert('Grant', grantId, { accountId: userId, clientId: `client-${grantId}`, iat: 1_800_000_000, kind: 'Grant' }, null)
  await insert('RefreshToken', `rt-${grantId}`, { grantId, iat: 1_800_000_100 }, grantId)
  await insert('Session', `session-${grantId}`, { accountId: userId }, null)
}

export async function agentRows (app: FastifyInstance, userId: string): Promise<number> {
  const [row] = await app.sql<{ n: number }>({
    text: `SELECT count(*)::int AS n FROM oidc_payloads WHERE payload->>'accountId' = $1
      OR grant_id IN (SELECT id FROM oidc_payloads WHERE payload->>'accountId' = $1)`,
    values: [userId]
  })
  return row?.n ?? 0
}
