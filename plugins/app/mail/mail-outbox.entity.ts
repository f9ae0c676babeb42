import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const

/**
 * Durable outgoing mail. A message is stored in the same transaction as the
 * change that causes it, together with its pg-boss job (`mail-delivery`), and
 * delivered by that job, which pg-boss retries with backoff.
 * The body can carry a secret (an invitation link), so it is stored encrypted
 * and erased once sent. Not tenant-scoped: delivery is a system job.
 */
const MailOutboxSchema = defineEntity({
  name: 'MailOutbox',
  tableName: 'mail_outbox',
  properties: {
    id: uuidPrimaryKey(),
    tenantId: p.uuid().nullable(),
    kind: p.string().length(60),
    recipient: p.string().length(254),
    subject: p.string().length(300),
    /** AES-256-GCM sealed JSON {text, html}; null once sent. */
    sealedBody: p.text().nullable().hidden(),
    status: p.enum(MAIL_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    nextAttemptAt: timestamp(),
    lockedUntil: timestamp().nullable(),
    lastError: p.string().length(1000).nullable(),
    sentAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  indexes: [
    { properties: ['status', 'nextAttemptAt'] }
  ]
})

export class MailOutbox extends MailOutboxSchema.class {}
MailOutboxSchema.setClass(MailOutbox)
