import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createMailTransport } from '../../../../plugins/app/mail/mail-transport.ts'
import { recordingLogger } from '../../../support/mail-outbox-db.ts'
import { parseMessage, startSmtpServer } from '../../../support/mail-smtp.ts'

const message = {
  id: '7d1c2d55-1df4-4f5e-9d6a-8f1f0f7f2a10',
  to: 'someone@example.com',
  subject: 'You\'re invited to join Ünïcode GmbH on ERP Portal',
  text: 'Hello,\nopen http://portal.test/invitation/accept?token=abc_DEF-123\n',
  html: '<p>Hello</p>',
  actionUrl: 'http://portal.test/invitation/accept?token=abc_DEF-123'
}

t.test('without SMTP_URL each message becomes a private .eml file and its link is logged', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'mail-transport-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const log = recordingLogger()
  const transport = createMailTransport({ dataDir, from: 'ERP Portal <no-reply@localhost>', log })
  t.equal(transport.kind, 'file')
  await transport.send(message)

  const files = await readdir(join(dataDir, 'mail'))
  t.equal(files.length, 1)
  t.match(files[0], new RegExp(`${message.id}\\.eml$`))
  const file = join(dataDir, 'mail', files[0] ?? '')
  t.equal((await stat(file)).mode & 0o777, 0o600, 'readable by the service only: it holds the link')
  const parsed = parseMessage(await readFile(file, 'utf8'))
  t.equal(parsed.subject, message.subject)
  t.match(parsed.text, message.actionUrl)
  const info = log.entries.find((entry) => entry.level === 'info')
  t.match(info?.context, { to: message.to, link: message.actionUrl, file })
  transport.close()
})

t.test('with SMTP_URL messages go to the SMTP server', async (t) => {
  const smtp = await startSmtpServer(t)
  const transport = createMailTransport({ smtpUrl: smtp.url, dataDir: '/nonexistent', from: 'ERP Portal <no-reply@portal.test>', log: recordingLogger() })
  t.equal(transport.kind, 'smtp')
  await transport.send(message)
  const mail = await smtp.nextMail()
  t.same(mail.to, [message.to])
  t.equal(mail.from, 'no-reply@portal.test')
  t.equal(mail.subject, message.subject)
  t.match(mail.text, message.actionUrl)
  t.match(mail.raw, /Auto-Submitted: auto-generated/i)
  transport.close()
})
