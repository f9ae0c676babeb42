/**
 * One rule for every subdomain we hand out, tenant (signup) and instance alike:
 * a DNS label of 3 to 40 characters, lowercase letters, digits and inner hyphens.
 */
export const SUBDOMAIN_PATTERN = '^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$'
export const SUBDOMAIN_RULE = '3 to 40 lowercase letters, digits or hyphens, not starting or ending with a hyphen'
const SUBDOMAIN = new RegExp(SUBDOMAIN_PATTERN)

export function isSubdomain (value: string): boolean {
  return SUBDOMAIN.test(value)
}

/**
 * Names that route to our own services, or that people would mistake for
 * ours. Shared by tenant signup and instance creation.
 */
export const RESERVED_SUBDOMAINS = new Set([
  'www', 'api', 'admin', 'administrator', 'portal', 'mail', 'smtp', 'imap', 'pop', 'ftp', 'app', 'apps', 'auth', 'oauth',
  'login', 'sso', 'id', 'account', 'accounts', 'billing', 'pay', 'payments', 'support', 'help', 'docs', 'status',
  'static', 'assets', 'cdn', 'media', 'dashboard', 'console', 'mcp', 'ns1', 'ns2', 'dns', 'vpn', 'git', 'registry',
  'root', 'system', 'internal', 'localhost', 'test', 'staging', 'demo-admin', 'security', 'abuse', 'postmaster'
])

export function isReservedSubdomain (subdomain: string): boolean {
  return RESERVED_SUBDOMAINS.has(subdomain.toLowerCase())
}
