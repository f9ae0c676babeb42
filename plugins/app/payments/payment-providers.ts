import { deriveKey } from '../../../lib/secrets.ts'
import type { PaymentProvider } from './payment-provider.ts'
import { createSandboxProvider, type SandboxProvider } from './sandbox-provider.ts'

export interface PaymentSettings {
  /** PAYMENT_PROVIDERS: enabled providers, comma-separated. */
  providers: string
  /** PAYMENT_WEBHOOK_SECRETS: `provider:secret` pairs, comma-separated. */
  secrets: string
  jwtSecret: string
}

export interface PaymentProviders {
  get: (name: string) => PaymentProvider | undefined
  /** Set while the sandbox is enabled. */
  sandbox: SandboxProvider | undefined
  names: string[]
}

/** The providers this build can talk to. A real one (mobile money, cards) adds its factory here. */
const FACTORIES: Record<string, (secret: string) => PaymentProvider> = {
  sandbox: createSandboxProvider
}

const MIN_SECRET_LENGTH = 16

/** A wrong PAYMENT_PROVIDERS or PAYMENT_WEBHOOK_SECRETS; the configuration check reports it at start. */
export class PaymentSettingsError extends Error {
  override name = 'PaymentSettingsError'
  readonly variable: 'PAYMENT_PROVIDERS' | 'PAYMENT_WEBHOOK_SECRETS'
  constructor (variable: PaymentSettingsError['variable'], message: string) {
    super(message)
    this.variable = variable
  }
}

/** The sandbox's webhook secret when none is configured: HKDF-SHA256 of JWT_SECRET, info `payments-sandbox`, as hex. */
export function deriveSandboxSecret (jwtSecret: string): string {
  return deriveKey(jwtSecret, 'payments-sandbox').toString('hex')
}

/** `a:secret1,b:secret2` -> {a: secret1, b: secret2}; a secret may itself contain `:`. */
export function parseWebhookSecrets (text: string): Map<string, string> {
  const secrets = new Map<string, string>()
  for (const entry of text.split(',').map((part) => part.trim()).filter(Boolean)) {
    const colon = entry.indexOf(':')
    const name = entry.slice(0, Math.max(colon, 0)).trim().toLowerCase()
    const secret = entry.slice(colon + 1).trim()
    if (colon < 1 || secret === '') throw new PaymentSettingsError('PAYMENT_WEBHOOK_SECRETS', 'PAYMENT_WEBHOOK_SECRETS entries must look like provider:secret')
    if (secrets.has(name)) throw new PaymentSettingsError('PAYMENT_WEBHOOK_SECRETS', `PAYMENT_WEBHOOK_SECRETS names ${name} twice`)
    if (secret.length < MIN_SECRET_LENGTH) throw new PaymentSettingsError('PAYMENT_WEBHOOK_SECRETS', `PAYMENT_WEBHOOK_SECRETS: the secret of ${name} must be at least ${MIN_SECRET_LENGTH} characters`)
    secrets.set(name, secret)
  }
  return secrets
}

/** The enabled providers with their secrets; a wrong configuration stops the service with a message naming the variable. */
export function createPaymentProviders (settings: PaymentSettings): PaymentProviders {
  const secrets = parseWebhookSecrets(settings.secrets)
  const names = [...new Set(settings.providers.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean))]
  const enabled = new Map<string, PaymentProvider>()
  let sandbox: SandboxProvider | undefined
  for (const name of names) {
    const factory = Object.hasOwn(FACTORIES, name) ? FACTORIES[name] : undefined
    if (factory === undefined) throw new PaymentSettingsError('PAYMENT_PROVIDERS', `PAYMENT_PROVIDERS names "${name}", which is not supported (supported: ${Object.keys(FACTORIES).join(', ')})`)
    if (name === 'sandbox') {
      sandbox = createSandboxProvider(secrets.get(name) ?? deriveSandboxSecret(settings.jwtSecret))
      enabled.set(name, sandbox)
      continue
    }
    const secret = secrets.get(name)
    if (secret === undefined) throw new PaymentSettingsError('PAYMENT_WEBHOOK_SECRETS', `PAYMENT_WEBHOOK_SECRETS has no secret for the enabled provider ${name}`)
    enabled.set(name, factory(secret))
  }
  return { get: (name) => enabled.get(name), sandbox, names }
}
