import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { signBody } from '../../plugins/app/payments/hmac-signature.ts'
import { deriveSandboxSecret } from '../../plugins/app/payments/payment-providers.ts'
import { TEST_JWT_SECRET } from './build.ts'
import { bearer } from './accounts.ts'

/** The test apps' sandbox secret: derived from their JWT_SECRET, as nothing else is configured. */
export const SANDBOX_SECRET = deriveSandboxSecret(TEST_JWT_SECRET)

export interface SandboxEvent {
  transaction_id?: string
  reference: string
  /** Minor units */
  amount: number
  currency?: string
  status?: 'paid' | 'failed'
}

/** A sandbox webhook call, signed like the provider signs it (unless told otherwise). */
export function postWebhook (app: FastifyInstance, event: SandboxEvent, options: { secret?: string, signature?: string | null, provider?: string } = {}) {
  const body = JSON.stringify({ transaction_id: `tx-${randomUUID()}`, currency: 'EUR', status: 'paid', ...event })
  const signature = options.signature === undefined ? signBody(options.secret ?? SANDBOX_SECRET, body) : options.signature
  return app.inject({
    method: 'POST',
    url: `/api/payments/webhook/${options.provider ?? 'sandbox'}`,
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-signature': signature }) },
    payload: body
  })
}

/** select-plan (optionally), then subscribe; answers the subscription. */
export async function subscribeTo (app: FastifyInstance, token: string, planId: number, options: { cycle?: 'monthly' | 'yearly', users?: number, storage?: number } = {}) {
  const cycle = options.cycle ?? 'monthly'
  if (options.users !== undefined || options.storage !== undefined) {
    const selected = await app.inject({
      method: 'POST', url: '/api/subscription/select-plan', headers: bearer(token),
      payload: { plan_id: planId, users: options.users ?? 3, storage: options.storage ?? 0, workers: 1, instances: 1, billing_cycle: cycle }
    })
    if (selected.statusCode !== 200) throw new Error(`select-plan failed: ${selected.body}`)
  }
  const response = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers: bearer(token), payload: { plan_id: planId, billing_cycle: cycle } })
  if (response.statusCode !== 200) throw new Error(`subscribe failed: ${response.body}`)
  return response.json().subscription as { id: string, status: string, amount_due: number, payment_reference: string, currency: string }
}

export function confirm (app: FastifyInstance, token: string, planId: number) {
  return app.inject({ method: 'POST', url: '/api/subscription/confirm', headers: bearer(token), payload: { plan_id: planId } })
}
