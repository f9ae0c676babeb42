import fp from 'fastify-plugin'
import { createMailDispatcher, passResult, type PassResult } from './mail-dispatcher.job.ts'
import { MAIL_QUEUE, mailTuning } from './mail.queue.ts'
import { createMailSealer } from './mail-seal.ts'
import { createMailService, type MailService } from './mail.service.ts'
import { createMailTransport } from './mail-transport.ts'

declare module 'fastify' {
  interface FastifyInstance {
    mail: MailService & {
      /** `smtp` (SMTP_URL) or `file` (.eml files under DATA_DIR/mail). */
      transport: 'smtp' | 'file'
      /**
       * Delivers every due message now (`next_attempt_at` passed, whatever pg-boss's jitter says)
       * in this process, and reports what happened.
       */
      dispatchNow: () => Promise<PassResult>
    }
  }
}

/**
 * Outgoing e-mail through a durable outbox (see mail-outbox.entity.ts): a
 * service enqueues the row and its pg-boss job in its own transaction; the
 * `mail-delivery` queue's workers deliver, and pg-boss retries failed attempts
 * with exponential backoff.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  const log = fastify.log.child({ component: 'mail' })
  const sealer = createMailSealer(config.JWT_SECRET)
  const transport = createMailTransport({ smtpUrl: config.SMTP_URL, dataDir: config.DATA_DIR, from: config.MAIL_FROM, log })
  const dispatcher = createMailDispatcher({
    sql: fastify.sql,
    transport,
    sealer,
    log,
    secrets: smtpSecrets(config.SMTP_URL),
    tuning: mailTuning(config)
  })
  const { jobs } = fastify
  await jobs.define(MAIL_QUEUE, dispatcher.deliver)
  const service = createMailService({
    sealer,
    sendJob: (tx, id) => jobs.send(tx, MAIL_QUEUE, { id }, { id }),
    kick: () => { jobs.wake(MAIL_QUEUE) }
  })

  async function dispatchNow (): Promise<PassResult> {
    const due = await fastify.sql<{ id: string }>({ text: DUE, values: [] })
    for (const { id } of due) await jobs.boss.update(MAIL_QUEUE.name, undefined, { id, startAfter: new Date() })
    return passResult(await jobs.drain(MAIL_QUEUE))
  }

  fastify.decorate('mail', { ...service, transport: transport.kind, dispatchNow })
  // Rows written before delivery moved onto pg-boss have no job yet: give them one (the job id is
  // the row id, so a row that has one keeps it).
  fastify.addHook('onReady', async () => {
    if (!jobs.working) return
    const orphans = await fastify.sql<{ id: string }>({ text: ORPHANS, values: [MAIL_QUEUE.name] })
    for (const { id } of orphans) await jobs.boss.send(MAIL_QUEUE.name, { id }, { id })
  })
  fastify.addHook('onClose', async () => {
    await jobs.stop() // before the transport closes under a send in flight
    transport.close()
  })
}, { name: 'mail', dependencies: ['env', 'orm', 'jobs'] })

const DUE = `SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`

const ORPHANS = `
SELECT m.id FROM mail_outbox m
WHERE m.status = 'pending' AND NOT EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = $1 AND j.id = m.id)`

/** The SMTP password (and user), as written in SMTP_URL, so that errors never echo them. */
function smtpSecrets (smtpUrl: string | undefined): string[] {
  if (smtpUrl === undefined) return []
  try {
    const url = new URL(smtpUrl)
    return [url.password, decodeURIComponent(url.password)].filter((secret) => secret.length >= 4)
  } catch {
    return []
  }
}
