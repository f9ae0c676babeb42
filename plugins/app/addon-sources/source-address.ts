import type { LookupAddress } from 'node:dns'
import { OutboundUrlError, resolvePublicAddresses, type OutboundPolicy } from '../../../lib/outbound-url.ts'
import { AddonSourceAddressRefused, AddonSourceInvalid } from './addon-sources.errors.ts'

/**
 * The address git will connect to: the host resolved by the outbound guard,
 * every address public (or the host on ADDON_SOURCE_ALLOWED_HOSTS). Checked at
 * registration and again by every sync, which then pins git to this address.
 */
export async function sourceAddress (url: URL, policy: OutboundPolicy): Promise<LookupAddress> {
  try {
    const [first] = await resolvePublicAddresses(url.hostname, policy)
    return first as LookupAddress
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error
    if (error.failure === 'address') throw AddonSourceAddressRefused(`The repository's host is refused: ${error.message}`, { field: 'repository_url' })
    throw AddonSourceInvalid(`The repository's host cannot be reached: ${error.message}`, { field: 'repository_url' })
  }
}
