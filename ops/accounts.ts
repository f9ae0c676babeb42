import { parseArgs } from 'node:util'
import type pg from 'pg'
import { fromKysely } from 'pg-boss'
import { loadConfigOrExit } from '../config/startup.ts'
import { accountLinks } from '../lib/account-links.ts'
import { isAppError } from '../lib/errors.ts'
import { resolveJwtSecret } from '../lib/secrets.ts'
import { sqlOnPool } from '../lib/sql.ts'
import { createBoss } from '../plugins/external/jobs.ts'
import { createActivityService } from '../plugins/app/activity/activity.service.ts'
import { MAIL_QUEUE } from '../plugins/app/mail/mail.queue.ts'
import { createMailSealer } from '../plugins/app/mail/mail-seal.ts'
import { createMailService } from '../plugins/app/mail/mail.service.ts'
import { createGrantsService } from '../plugins/app/oauth/grants.service.ts'
import { createPasswordsService } from '../plugins/app/passwords/passwords.service.ts'
import { createTwoFactorResetService } from '../plugins/app/two-factor/two-factor-reset.service.ts'
import { createTwoFactorService } from '../plugins/app/two-factor/two-factor.service.ts'
import { openOpsDatabase } from './database.ts'

const USAGE = `Account operations for staff, under the same rules as the portal.

usage: npm run accounts -- <command> [options]     (or: node ops/accounts.ts <command> …)

  reset-password <email> [--print] [--as "<operator name>"]
        force a password reset: the current password stops working at once, every
        session and connected agent of the person ends, and a reset link (valid
        PASSWORD_RESET_TTL_MINUTES, once) is e-mailed to them; with --print the
        link is printed here instead of e-mailed (hand it over yourself)

  reset-two-factor <email> [--as "<operator name>"]
        remove the second factor (TOTP and recovery codes) of someone who lost it and
        whose company has no other administrator to do it: every session and connected
        agent of the person ends and a notice is e-mailed to them; they sign in with the
        password alone, or set a new factor up at login if the company requires one

  --json   print the result as JSON
  --help   this text

Connects like the server: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR, and the
same JWT_SECRET (the e-mail is sealed with it until the service's mail worker sends it).
Exit status: 0 done, 1 refused or failed (the reason is printed), 2 wrong usage.`

class UsageError extends Error {}

const OPTIONS = {
  print: { type: 'boolean' },
  as: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

async function main (): Promise<number> {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true })
  const [command, email, ...extra] = positionals
  if (values.help === true || command === 'help') {
    console.log(USAGE)
    return 0
  }
  if (command === undefined) throw new UsageError('a command is required')
  if (command !== 'reset-password' && command !== 'reset-two-factor') throw new UsageError(`unknown command "${command}"`)
  if (email === undefined) throw new UsageError(`${command} needs an e-mail address`)
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`)
  if (command === 'reset-two-factor' && values.print === true) throw new UsageError('--print is for reset-password only')
  const operator = values.as ?? 'An operator'
  const send = values.print !== true

  const config = loadConfigOrExit()
  const jwtSecret = await resolveJwtSecret(config)
  const database = await openOpsDatabase(config)
  const pool = await database.orm.em.getConnection().getNativeClient() as pg.Pool
  // Only to queue the e-mail's delivery job in the same transaction; the service's workers send it.
  const boss = createBoss(pool, { supervise: false, superviseIntervalSeconds: config.JOB_SUPERVISE_SECONDS })
  try {
    await boss.start()
    const activity = createActivityService()
    const mail = createMailService({
      sealer: createMailSealer(jwtSecret),
      sendJob: (tx, id) => boss.send(MAIL_QUEUE.name, { id }, { id, db: fromKysely(tx.getTransactionContext() as Parameters<typeof fromKysely>[0]) }),
      kick: () => {}
    })
    const grants = createGrantsService({ sql: sqlOnPool(pool), activity })
    if (command === 'reset-two-factor') {
      const twoFactor = createTwoFactorResetService({
        em: database.orm.em,
        activity,
        mail,
        grants,
        links: accountLinks(config),
        requiredByCompany: createTwoFactorService({ activity, secret: jwtSecret, issuer: config.PRODUCT_NAME }).requiredByCompany,
        product: config.PRODUCT_NAME
      })
      const result = await twoFactor.forceResetByEmail(email, operator)
      console.log(values.json === true
        ? JSON.stringify(result, null, 2)
        : `The second factor of ${result.email} is removed; ${result.sessions_ended} session(s) ended, ${result.agents_disconnected} agent(s) disconnected. ` +
          `A notice was queued for e-mail. ${result.enrolment_required ? 'Their company requires the factor: they set a new one up at their next login.' : 'They sign in with their password alone.'}`)
      return 0
    }
    const passwords = createPasswordsService({
      em: database.orm.em,
      activity,
      mail,
      jobs: { send: async () => { throw new Error('not used by operator commands') }, wake: () => {} },
      grants,
      links: accountLinks(config),
      product: config.PRODUCT_NAME,
      ttlMinutes: config.PASSWORD_RESET_TTL_MINUTES
    })
    const result = await passwords.forceReset(email, { send, operator })
    if (values.json === true) {
      console.log(JSON.stringify(result, null, 2))
      return 0
    }
    console.log([
      `The password of ${result.email} no longer works; ${result.sessions_ended} session(s) ended, ${result.agents_disconnected} agent(s) disconnected.`,
      result.mailed
        ? `A reset link was queued for e-mail to ${result.email} (valid ${config.PASSWORD_RESET_TTL_MINUTES} minutes, once).`
        : `Reset link (valid ${config.PASSWORD_RESET_TTL_MINUTES} minutes, once; give it to the person only):\n${result.link}`
    ].join('\n'))
    return 0
  } finally {
    await boss.stop({ graceful: false, close: false }).catch(() => {})
    await database.close()
  }
}

function describe (error: unknown): string {
  if (!isAppError(error)) return error instanceof Error ? error.message : String(error)
  return `${error.message} [${error.code}]`
}

try {
  process.exitCode = await main()
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
  console.error(`error: ${describe(error)}`)
  if (usage) console.error('\nRun with --help for usage.')
  process.exitCode = usage ? 2 : 1
}
