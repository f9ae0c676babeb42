import fp from 'fastify-plugin'
import { createMailDispatcher, type DispatcherTuning, type PassResult } from './mail-dispatcher.ts'
import { createMailSealer } from './mail-seal.ts'
import { createMailService, type MailService } from './mail.service.ts'
import { createMailTransport } from './mail-transport.ts'

declare module 'fastify' {
  interface FastifyInstance {
    mail: MailService & {
      /** `smtp` (SMTP_URL) or `file` (.eml files under DATA_DIR/mail). */
      transport: 'smtp' | 'file'
      /** Delivers every due message now and reports what happened. */
      dispatchNow: () => Promise<PassResult>
    }
  }
}

export interface MailPluginOptions {
  /** Dispatcher timings (tests make them short). */
  mail?: Partial<DispatcherTuning>
}

/**
 * Outgoing e-mail through a durable outbox (see mail-outbox.entity.ts): a
 * service enqueues in its own transaction, a dispatcher delivers with retries.
 * The dispatcher polls in the background without keeping the process alive and
 * stops when the app closes.
 */
export default fp<MailPluginOptions>(async (fastify, options) => {
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
    tuning: options.mail ?? {}
  })
  const service = createMailService({ sealer, kick: dispatcher.kick })

  fastify.decorate('mail', { ...service, transport: transport.kind, dispatchNow: dispatcher.dispatchNow })
  fastify.addHook('onReady', async () => {
    dispatcher.start()
    dispatcher.kick() // messages left over from before a restart
  })
  fastify.addHook('onClose', async () => {
    await dispatcher.stop()
    transport.close()
  })
}, { name: 'mail', dependencies: ['env', 'orm'] })

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
