/**
 * Rules that involve more than one value, or more than the schema can say:
 * each invalid setting becomes one ConfigProblem, found before anything starts.
 */
import { createPaymentProviders, PaymentSettingsError } from '../plugins/app/payments/payment-providers.ts'
import { imageTemplateProblem, isFixedImage } from '../provisioning/image-template.ts'
import type { AppConfig } from './env.ts'
import { parseUpgradeCommands } from '../plugins/app/upgrades/upgrade-commands.ts'
import type { ConfigProblem } from './problems.ts'
import { variableInfo } from './schema.ts'

type Rule = (config: AppConfig) => Array<Omit<ConfigProblem, 'allowed' | 'example' | 'secret'> & Partial<ConfigProblem>>

const ORIGIN = /^https?:\/\/[^/\s]+$/

const rules: Rule[] = [
  (config) => {
    const parsed = parseUpgradeCommands(config.ERP_UPGRADE_COMMANDS)
    return 'problem' in parsed ? [{ variable: 'ERP_UPGRADE_COMMANDS', value: config.ERP_UPGRADE_COMMANDS, reason: parsed.problem }] : []
  },

  (config) => config.corsOrigins.filter((origin) => !ORIGIN.test(origin)).map((origin) => ({
    variable: 'CORS_ORIGINS', value: config.CORS_ORIGINS, reason: `${JSON.stringify(origin)} is not an origin`
  })).slice(0, 1),

  (config) => {
    const reason = imageTemplateProblem(config.ERP_IMAGE, config.erpVersions)
    return reason === undefined ? [] : [{ variable: 'ERP_IMAGE', value: config.ERP_IMAGE, reason }]
  },

  (config) => (['DATABASE_URL', 'ERP_DATABASE_URL', 'SMTP_URL', 'BASE_URL', 'PORTAL_LOGIN_URL', 'PORTAL_API_URL', 'PORTAL_APP_URL'] as const).flatMap((variable) => {
    const value = config[variable]
    if (value === undefined || URL.canParse(value)) return []
    return [{ variable, value, reason: 'not a URL' }]
  }),

  (config) => (['BASE_URL', 'PORTAL_API_URL', 'AUTH_SERVER_URL', 'PORTAL_APP_URL'] as const).flatMap((variable) => {
    const value = config[variable]
    if (value === undefined || !URL.canParse(value)) return []
    const url = new URL(value)
    return url.search !== '' || url.hash !== '' ? [{ variable, value, reason: 'an origin (and path) takes no query or fragment' }] : []
  }),

  (config) => {
    if (!config.AUTH_SERVER_PROCESS || config.AUTH_PORT === undefined || config.AUTH_PORT !== config.PORT) return []
    return [{ variable: 'AUTH_PORT', value: String(config.AUTH_PORT), reason: 'the auth server started by the portal cannot share PORT', allowed: 'a port other than PORT', example: String(config.PORT + 1) }]
  },

  (config) => {
    if (config.DATABASE_URL !== undefined || config.EMBEDDED_PG_PORT === undefined) return []
    const taken = [config.PORT, ...(config.AUTH_SERVER_PROCESS && config.AUTH_PORT !== undefined ? [config.AUTH_PORT] : [])]
    if (!taken.includes(config.EMBEDDED_PG_PORT)) return []
    return [{ variable: 'EMBEDDED_PG_PORT', value: String(config.EMBEDDED_PG_PORT), reason: 'the embedded PostgreSQL cannot share PORT or AUTH_PORT', allowed: 'a port other than PORT and AUTH_PORT' }]
  },

  (config) => {
    if (config.OAUTH_REFRESH_TOKEN_TTL_SECONDS > config.OAUTH_ACCESS_TOKEN_TTL_SECONDS) return []
    return [{
      variable: 'OAUTH_REFRESH_TOKEN_TTL_SECONDS',
      value: String(config.OAUTH_REFRESH_TOKEN_TTL_SECONDS),
      reason: 'a refresh token must outlive the access tokens it renews',
      allowed: `more than OAUTH_ACCESS_TOKEN_TTL_SECONDS (${config.OAUTH_ACCESS_TOKEN_TTL_SECONDS})`
    }]
  },

  (config) => {
    try {
      createPaymentProviders({ providers: config.PAYMENT_PROVIDERS, secrets: config.PAYMENT_WEBHOOK_SECRETS, jwtSecret: 'configuration check' })
      return []
    } catch (error) {
      if (!(error instanceof PaymentSettingsError)) throw error
      const reason = error.message.replace(new RegExp(`^${error.variable}:? `), '')
      return [{ variable: error.variable, value: config[error.variable], reason }]
    }
  }
]

/** Every derived problem, with the variable's allowed text and example filled in from the schema. */
export function derivedProblems (config: AppConfig): ConfigProblem[] {
  return rules.flatMap((rule) => rule(config)).map((problem) => {
    const info = variableInfo(problem.variable)
    return { allowed: info.allowed, example: info.example, secret: info.secret, ...problem }
  })
}

/** Settings that are valid but worth a line at start. */
export function configWarnings (config: AppConfig): string[] {
  const warnings: string[] = []
  if (isFixedImage(config.ERP_IMAGE)) {
    warnings.push(`ERP_IMAGE=${JSON.stringify(config.ERP_IMAGE)} has no {version}: every instance runs this image, whatever ERP version is requested ` +
      `(ERP_VERSIONS=${config.erpVersions.join(',')}). Use a template such as ${variableInfo('ERP_IMAGE').example} to follow the version.`)
  }
  return warnings
}
