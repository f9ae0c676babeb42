import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  from: string
  to: string[]
  subject: string
  text: string
  html: string
  raw: string
}

export interface TestSmtpServer {
  url: string
  received: ReceivedMail[]
  /** `reject`: every RCPT TO answers 451 (a temporary failure); `accept`: normal delivery. */
  setMode: (mode: 'accept' | 'reject') => void
  rejectedCount: () => number
  /** The oldest message (to `to`, if given) not returned yet, waiting for it if need be. */
  nextMail: (options?: { to?: string, timeoutMs?: number }) => Promise<ReceivedMail>
}

/** A real SMTP server in-process on 127.0.0.1, closed at the end of the test. */
export async function startSmtpServer (t: { teardown: (fn: () => unknown) => void }): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = []
  const waiters: Array<() => void> = []
  let mode: 'accept' | 'reject' = 'accept'
  let rejected = 0
  const handedOut = new Set<ReceivedMail>()

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo (_address, _session, callback) {
      if (mode === 'accept') return callback()
      rejected++
      callback(Object.assign(new Error('Mailbox temporarily unavailable, try again later'), { responseCode: 451 }))
    },
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address
        received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw, ...parseMessage(raw) })
        waiters.splice(0).forEach((wake) => wake())
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.server.address()
  if (address === null || typeof address === 'string') throw new Error('SMTP server has no port')
  t.teardown(() => new Promise<void>((resolve) => server.close(resolve)))

  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    setMode: (next) => { mode = next },
    rejectedCount: () => rejected,
    async nextMail ({ to, timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const mail = received.find((m) => !handedOut.has(m) && (to === undefined || m.to.includes(to)))
        if (mail !== undefined) {
          handedOut.add(mail)
          return mail
        }
        if (Date.now() > deadline) throw new Error(`no e-mail${to === undefined ? '' : ` to ${to}`} arrived within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 100)
        })
      }
    }
  }
}

/** Just enough MIME for our own messages: headers, multipart/alternative, quoted-printable and base64. */
export function parseMessage (raw: string): { subject: string, text: string, html: string } {
  const parts: Record<string, string> = {}
  collectParts(raw.replace(/\r\n/g, '\n'), parts)
  const { headers } = splitMessage(raw.replace(/\r\n/g, '\n'))
  return { subject: decodeWords(headers.get('subject') ?? ''), text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '' }
}

function splitMessage (message: string): { headers: Map<string, string>, body: string } {
  const end = message.indexOf('\n\n')
  const head = (end === -1 ? message : message.slice(0, end)).replace(/\n[ \t]+/g, ' ')
  const headers = new Map<string, string>()
  for (const line of head.split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  return { headers, body: end === -1 ? '' : message.slice(end + 2) }
}

function collectParts (message: string, into: Record<string, string>): void {
  const { headers, body } = splitMessage(message)
  const type = headers.get('content-type') ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (type.toLowerCase().startsWith('multipart/') && boundary !== undefined) {
    const sections = body.split(`--${boundary}`).slice(1)
    for (const section of sections) {
      if (section.startsWith('--')) break
      collectParts(section.replace(/^\n/, ''), into)
    }
    return
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()
  let decoded = body
  if (encoding === 'base64') decoded = Buffer.from(body, 'base64').toString('utf8')
  if (encoding === 'quoted-printable') decoded = decodeQuotedPrintable(body)
  into[type.split(';')[0]?.trim().toLowerCase() ?? 'text/plain'] = decoded
}

function decodeQuotedPrintable (value: string): string {
  const soft = value.replace(/=\n/g, '')
  const bytes: number[] = []
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3)
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(soft[i] ?? '', 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

function decodeWords (value: string): string {
  return value.replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=\s*/gi, (_, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')))
}
