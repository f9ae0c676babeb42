import { join, resolve } from 'node:path'
import { envSchema } from 'env-schema'
import addFormats from 'ajv-formats'
import { Type, type Static } from 'typebox'

/**
 * The one validated configuration schema. Every variable is documented in
 * `.env.example` and in the README's configuration table.
 */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: 'localhost' }),
  BASE_URL: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329 }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  TOKEN_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 2_592_000, default: 43_200 }),
  SEED_DEMO: Type.Boolean({ default: true }),
  DEMO_COMPANY: Type.String({ minLength: 1, default: 'Demo Company' }),
  DEMO_SUBDOMAIN: Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$', default: 'demo' }),
  DEMO_ADMIN_EMAIL: Type.String({ format: 'email', default: 'admin@demo.example.com' }),
  DEMO_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 10 })),
  CORS_ORIGINS: Type.String({ default: '' }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 104_857_600, default: 1_048_576 }),
  TRUST_PROXY: Type.Boolean({ default: false }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' }
  ),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ minLength: 3, default: 'ERP Portal <no-reply@localhost>' }),
  INVITATION_TTL_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 7 }),
  INVITATION_RESEND_LIMIT: Type.Integer({ minimum: 1, default: 3 }),
  SUPPORT_API_TOKEN: Type.Optional(Type.String({ minLength: 32 })),
  PAYMENT_PROVIDERS: Type.Optional(Type.String({ description: 'Enabled payment providers, comma-separated' })),
  PAYMENT_WEBHOOK_SECRETS: Type.String({ default: '', description: 'provider:secret pairs, comma-separated; the sandbox falls back to a key derived from JWT_SECRET' }),
  TRIAL_SWEEP_SECONDS: Type.Integer({ minimum: 5, maximum: 86_400, default: 300 }),
  LOGIN_LIMIT_PER_IP: Type.Integer({ minimum: 1, default: 20 }),
  LOGIN_LIMIT_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 10 }),
  SIGNUP_LIMIT_PER_IP: Type.Integer({ minimum: 1, default: 10 }),
  SIGNUP_LIMIT_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 5 }),
  ERP_VERSIONS: Type.String({ pattern: '^\\s*\\d+\\.\\d+\\s*(,\\s*\\d+\\.\\d+\\s*)*$', default: '16.0,17.0,18.0' }),
  INSTANCE_BACKENDS: Type.String({ pattern: '^\\s*(docker|kubernetes)\\s*(,\\s*(docker|kubernetes)\\s*)*$', default: 'docker,kubernetes' }),
  INSTANCES_DOMAIN: Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$', default: 'localhost' }),
  ERP_IMAGE: Type.String({ minLength: 1, default: 'odoo:{version}' }),
  ERP_DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  ERP_DATABASE_HOST: Type.Optional(Type.String({ minLength: 1 })),
  ADDONS_ROOT: Type.Optional(Type.String({ minLength: 1 })),
  ERP_ADDONS_PATH: Type.String({ pattern: '^/', default: '/mnt/extra-addons' }),
  ERP_DATA_PATH: Type.String({ pattern: '^/', default: '/var/lib/odoo' }),
  ERP_HEALTHCHECK: Type.String({ minLength: 1, default: 'curl -fsS http://127.0.0.1:8069/web/health || exit 1' }),
  ERP_HEALTHCHECK_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 10 }),
  ERP_HEALTH_PATH: Type.String({ pattern: '^/', default: '/web/health' }),
  DOCKER_NETWORK: Type.Optional(Type.String({ minLength: 1 })),
  DOCKER_PUBLISH_PORTS: Type.Boolean({ default: true }),
  KUBECONFIG: Type.Optional(Type.String({ minLength: 1 })),
  KUBE_INGRESS_CLASS: Type.String({ minLength: 1, default: 'nginx' }),
  KUBE_TLS_ISSUER: Type.String({ minLength: 1, default: 'letsencrypt' }),
  KUBE_STORAGE_CLASS: Type.Optional(Type.String({ minLength: 1 })),
  JOB_WORKERS: Type.Boolean({ default: true }),
  JOB_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 50, default: 5 }),
  JOB_HEARTBEAT_SECONDS: Type.Integer({ minimum: 10, maximum: 3600, default: 30 }),
  JOB_SUPERVISE_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  INSTANCE_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
  INSTANCE_ERROR_GRACE_SECONDS: Type.Integer({ minimum: 1, maximum: 600, default: 15 }),
  INSTANCE_READY_TIMEOUT_SECONDS: Type.Integer({ minimum: 5, maximum: 3600, default: 300 }),
  INSTANCE_STOP_GRACE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 600,
    default: 30,
    description: 'How long a stopping ERP gets to exit after SIGTERM before it is killed (docker stop -t, Kubernetes terminationGracePeriodSeconds); Odoo with many workers needs more than 10 s'
  }),
  RECONCILE_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  AUTH_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 3001 }),
  AUTH_SERVER_PROCESS: Type.Boolean({ default: true }),
  PORTAL_LOGIN_URL: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
  PORTAL_API_URL: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
  HANDOFF_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  HANDOFF_TTL_SECONDS: Type.Integer({ minimum: 10, maximum: 60, default: 60 }),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 86_400, default: 900 }),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: Type.Integer({ minimum: 3600, maximum: 31_536_000, default: 2_592_000 }),
  OAUTH_REFRESH_GRACE_SECONDS: Type.Integer({ minimum: 0, maximum: 300, default: 30 })
})

type RawEnv = Static<typeof EnvSchema>

/** Resolved configuration: raw variables plus the values derived from them. */
export interface AppConfig extends Omit<RawEnv, 'LOG_LEVEL' | 'PAYMENT_PROVIDERS' | 'ADDONS_ROOT'> {
  LOG_LEVEL: string
  PAYMENT_PROVIDERS: string
  BASE_URL: string
  ADDONS_ROOT: string
  corsOrigins: string[]
  erpVersions: string[]
  instanceBackends: Array<'docker' | 'kubernetes'>
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * Reads and validates configuration. With no `source` it reads `process.env`
 * and a `.env` file in the working directory; with a `source` object it reads
 * only that object (tests use this to stay independent of the machine).
 */
export function loadConfig (source?: Record<string, unknown>): AppConfig {
  let raw: RawEnv
  try {
    raw = envSchema<RawEnv>({
      schema: EnvSchema,
      data: source ?? process.env,
      dotenv: source === undefined,
      ajv: {
        customOptions (ajv) {
          addFormats.default(ajv, ['uri', 'email'])
          return ajv
        }
      }
    })
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${describeEnvError(error)}`)
  }
  const baseUrl = (raw.BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, '')
  const corsOrigins = raw.CORS_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean)
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`Invalid configuration: CORS_ORIGINS entry "${origin}" must be an origin like https://app.example.com`)
    }
  }
  // The sandbox lets administrators mark their own payments paid: on by default
  // only for the out-of-the-box install (embedded database), never silently in production.
  const paymentProviders = raw.PAYMENT_PROVIDERS ?? (raw.DATABASE_URL === undefined ? 'sandbox' : '')
  return {
    ...raw,
    BASE_URL: baseUrl,
    corsOrigins,
    PAYMENT_PROVIDERS: paymentProviders,
    ADDONS_ROOT: resolve(raw.ADDONS_ROOT ?? join(raw.DATA_DIR, 'addons')),
    erpVersions: list(raw.ERP_VERSIONS),
    instanceBackends: list(raw.INSTANCE_BACKENDS) as Array<'docker' | 'kubernetes'>
  }
}

function list (value: string): string[] {
  return [...new Set(value.split(',').map((item) => item.trim()).filter(Boolean))]
}

/** env-schema reports `env/PORT must be <= 65535`; turn that into `PORT must be <= 65535`. */
function describeEnvError (error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/(^|, )env\//g, '$1').replace(/(^|, )env (must have required property)/g, '$1$2')
}
