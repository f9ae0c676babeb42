import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Subscription } from '../subscriptions/subscription.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed'] as const

/**
 * One payment attempt for a subscription. A provider's confirmation is applied
 * at most once: (provider, provider_transaction_id) is unique.
 */
const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    subscription: () => p.manyToOne(Subscription).index(),
    provider: p.string().length(40),
    /** Our reference, quoted by the payer (the subscription's payment reference) */
    reference: p.string().length(64).index(),
    providerTransactionId: p.string().length(128).nullable(),
    amount: p.bigint('number').check('amount >= 0'),
    currency: p.string().length(3),
    status: p.enum(PAYMENT_STATUSES).default('pending'),
    paidAt: timestamp().nullable(),
    /** Why a confirmation was refused (amount mismatch, …), for support */
    failureReason: p.string().length(300).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  uniques: [
    { name: 'payments_provider_transaction_unique', properties: ['provider', 'providerTransactionId'] }
  ]
})

export class Payment extends PaymentSchema.class {}
PaymentSchema.setClass(Payment)
