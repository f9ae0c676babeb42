import { checkOutboundUrl, OutboundUrlError, resolvePublicAddresses, type OutboundPolicy } from '../../../lib/outbound-url.ts'
import { WEBHOOK_EVENT_TYPES } from './webhook-events.ts'
import { invalidField } from '../../../lib/errors.ts'
import { WebhookUrlInvalid, WebhookUrlRefused } from './webhooks.errors.ts'

/**
 * An endpoint URL the service will POST to: https, no credentials, no fragment, and a host that
 * resolves only to public addresses (or is on WEBHOOK_ALLOWED_HOSTS). Every delivery checks the
 * address again and connects to the one it checked (lib/outbound-url.ts).
 */
export async function checkEndpointUrl (raw: string, policy: OutboundPolicy): Promise<string> {
  let url: URL
  try {
    url = checkOutboundUrl(raw.trim())
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error
    throw WebhookUrlInvalid(`The endpoint URL is refused: ${error.message}`, { field: 'url' })
  }
  if (url.hash !== '') throw WebhookUrlInvalid('The endpoint URL must not have a fragment (#...)', { field: 'url' })
  try {
    await resolvePublicAddresses(url.hostname, policy)
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error
    if (error.failure === 'address') throw WebhookUrlRefused(`The endpoint's host is refused: ${error.message}`, { field: 'url' })
    throw WebhookUrlInvalid(`The endpoint's host cannot be resolved: ${error.message}`, { field: 'url' })
  }
  return url.href
}

/** Known event types, each once, in the catalog's order; anything else is VALIDATION_FAILED listing the known ones. */
export function checkEvents (events: readonly string[]): string[] {
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event))
  const allowed = { allowed: WEBHOOK_EVENT_TYPES }
  if (unknown.length > 0) throw invalidField('events', `must each be one of: ${WEBHOOK_EVENT_TYPES.join(', ')} (not ${unknown.join(', ')})`, allowed)
  if (events.length === 0) throw invalidField('events', 'must have at least 1 item', allowed)
  return WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type))
}
