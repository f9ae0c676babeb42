import t from 'tap'
import { checkEvents } from '../../../../plugins/app/webhooks/webhook-input.ts'
import { WEBHOOK_EVENT_TYPES } from '../../../../plugins/app/webhooks/webhook-events.ts'

t.test('event types the service does not know are malformed input: VALIDATION_FAILED naming events and the known types', async (t) => {
  const allowed = [...WEBHOOK_EVENT_TYPES]
  t.throws(() => checkEvents(['instance.nonsense']), {
    code: 'VALIDATION_FAILED',
    statusCode: 400,
    message: /^events must each be one of: .* \(not instance\.nonsense\)$/,
    details: { fields: [{ field: 'events', in: 'body', allowed }] }
  })
  t.throws(() => checkEvents([]), { code: 'VALIDATION_FAILED', details: { fields: [{ field: 'events', message: 'must have at least 1 item', allowed }] } })
  t.same(checkEvents([allowed[1]!, allowed[0]!, allowed[1]!]), [allowed[0], allowed[1]], 'known types, each once, in the catalog\'s order')
})
