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
