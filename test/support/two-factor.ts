import type { FastifyInstance } from 'fastify'
import { codeAt, stepAt } from '../../plugins/app/two-factor/totp.ts'
import { bearer } from './accounts.ts'

/** The code an authenticator app shows `offset` steps (30 s each) from now. */
export function totpCode (secret: string, offset = 0): string {
  return codeAt(secret, stepAt(Date.now()) + offset)
}

/**
 * Turns the factor on for the token's user through the real routes. The
 * code it sends (`usedCode`) is spent: a next login uses `totpCode(secret, 1)`.
 */
export async function enableTwoFactor (app: FastifyInstance, token: string): Promise<{ secret: string, recoveryCodes: string[], usedCode: string }> {
  const started = await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(token) })
  if (started.statusCode !== 200) throw new Error(`enrolment failed: ${started.statusCode} ${started.body}`)
  const { secret } = started.json()
  const usedCode = totpCode(secret)
  const verified = await app.inject({ method: 'POST', url: '/api/me/2fa/verify', headers: bearer(token), payload: { code: usedCode } })
  if (verified.statusCode !== 200) throw new Error(`verification failed: ${verified.statusCode} ${verified.body}`)
  return { secret, recoveryCodes: verified.json().recovery_codes, usedCode }
}

/** POST /api/login from a given address. */
export function login (app: FastifyInstance, email: string, password: string, remoteAddress = '10.40.0.1') {
  return app.inject({ method: 'POST', url: '/api/login', payload: { login: email, password }, remoteAddress })
}

/** POST /api/login/2fa from a given address. */
export function secondStep (app: FastifyInstance, body: Record<string, string>, remoteAddress = '10.40.0.1') {
  return app.inject({ method: 'POST', url: '/api/login/2fa', payload: body, remoteAddress })
}
