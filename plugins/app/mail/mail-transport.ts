import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import nodemailer from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import type { MailBody } from './mail-seal.ts'

export interface OutgoingMessage extends MailBody {
  id: string
  to: string
  subject: string
}

export interface MailTransport {
  kind: 'smtp' | 'file'
  send: (message: OutgoingMessage) => Promise<void>
  close: () => void
}

export interface MailTransportOptions {
  smtpUrl?: string
  dataDir: string
  from: string
  log: FastifyBaseLogger
}

/** Shorter than a delivery attempt's lease (the job's expiry), so a hung server cannot make two replicas send one message. */
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 }

/**
 * SMTP when SMTP_URL is set. Otherwise each message becomes an .eml file under
 * DATA_DIR/mail and its link is logged, so a fresh install can still invite
 * people without a mail server.
 */
export function createMailTransport ({ smtpUrl, dataDir, from, log }: MailTransportOptions): MailTransport {
  const envelope = (message: OutgoingMessage) => ({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: { 'Auto-Submitted': 'auto-generated' }
  })

  if (smtpUrl !== undefined) {
    const smtp = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS })
    return {
      kind: 'smtp',
      async send (message) { await smtp.sendMail(envelope(message)) },
      close () { smtp.close() }
    }
  }

  const directory = resolve(dataDir, 'mail')
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    kind: 'file',
    async send (message) {
      const info = await stream.sendMail(envelope(message))
      await mkdir(directory, { recursive: true, mode: 0o700 })
      const file = join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.id}.eml`)
      // The file holds the link in clear: readable by the service's user only.
      await writeFile(file, info.message as Buffer, { mode: 0o600 })
      log.info({ to: message.to, subject: message.subject, file, link: message.actionUrl }, 'No SMTP_URL set: e-mail written to a file instead of being sent')
    },
    close () { stream.close() }
  }
}
