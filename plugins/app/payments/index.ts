import fp from 'fastify-plugin'
import { createPaymentProviders, type PaymentProviders } from './payment-providers.ts'
import { createPaymentsService, type PaymentsService } from './payments.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    payments: PaymentsService & { providers: PaymentProviders }
  }
}

/**
 * Payment providers (PAYMENT_PROVIDERS, secrets from PAYMENT_WEBHOOK_SECRETS)
 * and the handling of their confirmations. A wrong configuration stops the
 * app at start, naming the variable.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  const providers = createPaymentProviders({ providers: config.PAYMENT_PROVIDERS, secrets: config.PAYMENT_WEBHOOK_SECRETS, jwtSecret: config.JWT_SECRET })
  const log = fastify.log.child({ component: 'payments' })
  if (providers.sandbox !== undefined) {
    log.warn('The sandbox payment provider is enabled: administrators can mark their own payments paid. Set PAYMENT_PROVIDERS to your real providers in production.')
  }
  const service = createPaymentsService({ orm: fastify.orm, providers, subscriptions: fastify.subscriptions, activity: fastify.activity, log })
  fastify.decorate('payments', { ...service, providers })
}, { name: 'payments', dependencies: ['env', 'orm', 'activity', 'subscriptions'] })
