/** Names and labels the Docker backend gives an instance's container and volume. */

export const LABELS = {
  managed: 'erp.managed',
  instanceId: 'erp.instance-id',
  tenantId: 'erp.tenant-id',
  tenant: 'erp.tenant',
  subdomain: 'erp.subdomain'
} as const

/** The ERP's HTTP port inside the container (Odoo's default). */
export const ERP_PORT = 8069

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** Subdomains name containers, volumes and host folders: only DNS labels get that far. */
export function assertDnsLabel (what: string, value: string): void {
  if (!DNS_LABEL.test(value)) throw new TypeError(`${what} must be a DNS label (a-z, 0-9, '-'), got ${JSON.stringify(value)}`)
}

export function containerName (subdomain: string): string {
  assertDnsLabel('subdomain', subdomain)
  return `erp-${subdomain}`
}

export function dataVolumeName (subdomain: string): string {
  return `${containerName(subdomain)}-data`
}
