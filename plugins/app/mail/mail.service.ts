import { randomUUID } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { MailOutbox } from './mail-outbox.entity.ts'
import type { MailBody, MailSealer } from './mail-seal.ts'

export interface MailToSend extends MailBody {
  /** The tenant the message is about (null for system mail). */
  tenantId: string | null
  /** What the message is, e.g. `invitation`. */
  kind: string
  to: string
  subject: string
}

export interface MailServiceDeps {
  sealer: MailSealer
  /** Queues the delivery job of outbox row `id` inside `tx` (pg-boss, on the same connection). */
  sendJob: (tx: EntityManager, id: string) => Promise<unknown>
  /** Wakes this process's mail worker; called after the enqueuing commit. */
  kick: () => void
}

/** Header values never carry line breaks; long ones are cut to the column size. */
const oneLine = (value: string, max: number) => value.replace(/[\r\n\t]+/g, ' ').trim().slice(0, max)

export function createMailService ({ sealer, sendJob, kick }: MailServiceDeps) {
  return {
    /**
     * Adds a message to `em`'s unit of work and queues its delivery job on the
     * same transaction: call it inside the transaction of the change that causes
     * it, so the message and its job exist if and only if the change does. Then
     * call `kick()` once that transaction has committed.
     */
    async enqueue (em: EntityManager, mail: MailToSend): Promise<MailOutbox> {
      if (!em.isInTransaction()) throw new Error('mail.enqueue needs the transaction of the change that causes the message')
      const id = randomUUID()
      const body: MailBody = { text: mail.text, html: mail.html, ...(mail.actionUrl === undefined ? {} : { actionUrl: mail.actionUrl }) }
      await sendJob(em, id)
      return em.create(MailOutbox, {
        id,
        tenantId: mail.tenantId,
        kind: mail.kind,
        recipient: oneLine(mail.to, 254),
        subject: oneLine(mail.subject, 300),
        sealedBody: sealer.seal(body, id),
        status: 'pending',
        attempts: 0,
        nextAttemptAt: new Date(),
        lockedUntil: null,
        lastError: null,
        sentAt: null
      })
    },

    /**
     * Drops messages not yet sent (and not being sent right now) that a later
     * change made obsolete, e.g. an invitation e-mail whose link was replaced.
     */
    async discardPending (em: EntityManager, match: { tenantId: string, kind: string, recipient: string }): Promise<number> {
      return em.nativeDelete(MailOutbox, {
        tenantId: match.tenantId,
        kind: match.kind,
        recipient: match.recipient,
        status: 'pending',
        $or: [{ lockedUntil: null }, { lockedUntil: { $lt: new Date() } }]
      })
    },

    kick
  }
}

export type MailService = ReturnType<typeof createMailService>
