import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { startReceiver, until } from '../../../support/webhook-receiver.ts'

t.setTimeout(60_000)

t.test('an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled and its admins are e-mailed, once', async (t) => {
  const receiver = await startReceiver(t, { answer: () => 500 })
  const { app } = await build(t, { env: { ...receiver.env, WEBHOOK_DISABLE_AFTER_HOURS: 1 } })
  const admin = await signup(app)
  const { webhook } = (await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['instance.error'] } })).json()
  const em = app.orm.em.fork()
  // It has been failing for two hours already.
  await em.execute('UPDATE webhook_endpoints SET failing_since = now() - interval \'2 hours\' WHERE id = ?', [webhook.id])
  await app.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/test`, headers: bearer(admin.token) })
  await app.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/test`, headers: bearer(admin.token) })
  await until(async () => (await app.inject({ method: 'GET', url: `/api/webhooks/${webhook.id}`, headers: bearer(admin.token) })).json().webhook.enabled === false, 20_000, 'disabled')
  const got = (await app.inject({ method: 'GET', url: `/api/webhooks/${webhook.id}`, headers: bearer(admin.token) })).json().webhook
  t.match(got, { enabled: false, disabled_reason: /failed for 1 hours/ })
  await until(async () => (await app.inject({ method: 'GET', url: `/api/webhooks/${webhook.id}/deliveries`, headers: bearer(admin.token) })).json().deliveries.every((d: { status: string }) => d.status === 'failed'), 20_000, 'both settled')
  const mails = await em.execute<Array<{ recipient: string }>>('SELECT recipient FROM mail_outbox WHERE kind = ?', ['webhook-disabled'])
  t.same(mails.map((m) => m.recipient), [admin.email], 'one e-mail to the one admin')
  const feed = (await app.inject({ method: 'GET', url: '/api/activity?type=webhook.disabled', headers: bearer(admin.token) })).json()
  t.equal(feed.activities.length, 1, 'in the activity feed')

  const enabled = await app.inject({ method: 'PUT', url: `/api/webhooks/${webhook.id}`, headers: bearer(admin.token), payload: { enabled: true } })
  t.match(enabled.json(), { webhook: { enabled: true, disabled_reason: null, failing_since: null } }, 'turned on again: a fresh start')
})
