import { parseArgs } from 'node:util'
import type { FastifyBaseLogger } from 'fastify'
import { loadConfigOrExit } from '../config/startup.ts'
import { isAppError } from '../lib/errors.ts'
import { resolveJwtSecret } from '../lib/secrets.ts'
import { createActivityService } from '../plugins/app/activity/activity.service.ts'
import { createPaymentProviders } from '../plugins/app/payments/payment-providers.ts'
import { createPaymentsService } from '../plugins/app/payments/payments.service.ts'
import { createSubscriptionsService } from '../plugins/app/subscriptions/subscriptions.service.ts'
import { openOpsDatabase } from './database.ts'

const USAGE = `Sandbox payments: mark a subscription's payment reference paid, as the sandbox provider would.

usage: node ops/payments.ts pay <payment_reference> [--amount <major units>] [--json]

  pay <reference>     a signed sandbox event for the amount due, processed like the
                      webhook: the matching payment activates the subscription
  --amount 12.34      pay another amount instead (simulates a wrong payment)
  --json              print the outcome as JSON
  --help              this text

Needs the sandbox provider enabled (PAYMENT_PROVIDERS). Connects like the server:
DATABASE_URL, or the embedded PostgreSQL under DATA_DIR; JWT_SECRET, or the one
generated under DATA_DIR. Exit status: 0 paid, 1 refused or failed, 2 wrong usage.`

class UsageError extends Error {}

/** Warnings and errors to stderr; the rest is the outcome on stdout. */
function consoleLogger (): FastifyBaseLogger {
  const quiet = () => {}
  const loud = (context: unknown, message?: string) => { console.error(`warning: ${message ?? String(context)}`) }
  const log = { level: 'warn', fatal: loud, error: loud, warn: loud, info: quiet, debug: quiet, trace: quiet, silent: quiet, child: () => log }
  return log as unknown as FastifyBaseLogger
}

async function main (): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { amount: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true
  })
  if (values.help === true || positionals[0] === 'help') {
    console.log(USAGE)
    return 0
  }
  const [command, reference, ...extra] = positionals
  if (command !== 'pay') throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`)
  if (reference === undefined) throw new UsageError('pay needs a payment reference')
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`)
  const amount = values.amount === undefined ? undefined : Number(values.amount)
  if (amount !== undefined && !(Number.isFinite(amount) && amount >= 0)) throw new UsageError('--amount must be a number of major units, e.g. 49.90')

  const config = loadConfigOrExit()
  const jwtSecret = await resolveJwtSecret(config)
  const database = await openOpsDatabase(config)
  try {
    const activity = createActivityService()
    const payments = createPaymentsService({
      orm: database.orm,
      providers: createPaymentProviders({ providers: config.PAYMENT_PROVIDERS, secrets: config.PAYMENT_WEBHOOK_SECRETS, jwtSecret }),
      subscriptions: createSubscriptionsService({ activity }),
      activity,
      log: consoleLogger()
    })
    const outcome = await payments.sandboxPayAsOperator({ reference, amount })
    if (values.json === true) console.log(JSON.stringify(outcome, null, 2))
    else if (outcome.duplicate) console.log('Already received; nothing changed.')
    else if (outcome.payment_status === 'paid') console.log(`Paid${outcome.activated === true ? '; the subscription is active.' : '.'}`)
    else console.log(`Recorded but not applied: ${outcome.reason ?? 'refused'}`)
    return outcome.payment_status === 'failed' ? 1 : 0
  } finally {
    await database.close()
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
  console.error(`error: ${isAppError(error) ? `${error.message} [${error.code}]` : error instanceof Error ? error.message : String(error)}`)
  if (usage) console.error('\nRun with --help for usage.')
  process.exitCode = usage ? 2 : 1
}
