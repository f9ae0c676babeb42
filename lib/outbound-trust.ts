import { createSecureContext, getCACertificates, type SecureContext } from 'node:tls'

/**
 * The certificate authorities an outbound HTTPS request of ours trusts: the
 * system's store, Node's bundled roots and the standard extra-trust setting
 * `NODE_EXTRA_CA_CERTS` (Node reads that file at start-up; 'default' holds it).
 * Passing `ca` replaces Node's default set, so the union is spelt out here.
 * `extra` adds a certificate a caller was handed (a test server's own).
 * Git trusts its own way: the system bundle, or `GIT_SSL_CAINFO` when set.
 */
export function trustedCertificates (extra?: string): string[] {
  const all = new Set([...getCACertificates('default'), ...systemCertificates()])
  if (extra !== undefined) all.add(extra)
  return [...all]
}

let system: string[] | undefined
function systemCertificates (): string[] {
  // Reading the system store is not free; it does not change while the process runs.
  system ??= getCACertificates('system')
  return system
}

const contexts = new Map<string | undefined, SecureContext>()

/**
 * A TLS context trusting `trustedCertificates(extra)`, made once per `extra`: parsing a few
 * hundred certificates costs more than the request it is for (webhook deliveries make many).
 */
export function trustedContext (extra?: string): SecureContext {
  let context = contexts.get(extra)
  if (context === undefined) {
    context = createSecureContext({ ca: trustedCertificates(extra) })
    contexts.set(extra, context)
  }
  return context
}
