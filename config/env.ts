import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { Static } from 'typebox'
import { productName } from '../lib/product-name.ts'
import { derivedProblems } from './derived-rules.ts'
import { ConfigError, type ConfigProblem } from './problems.ts'
import { EnvSchema, VARIABLES, variableInfo } from './schema.ts'

export { ConfigError, type ConfigProblem, formatProblem } from './problems.ts'

type RawEnv = Static<typeof EnvSchema>

/** Resolved configuration: raw variables plus the values derived from them. */
export interface AppConfig extends Omit<RawEnv, 'LOG_LEVEL' | 'PAYMENT_PROVIDERS' | 'ADDONS_ROOT' | 'PRODUCT_NAME'> {
  LOG_LEVEL: string
  PRODUCT_NAME: string
  PAYMENT_PROVIDERS: string
  BASE_URL: string
  ADDONS_ROOT: string
  corsOrigins: string[]
  erpVersions: string[]
  instanceBackends: Array<'docker' | 'kubernetes'>
}

let validator: ValidateFunction | undefined

/** Coerces strings to the schema's types and fills defaults, in place; every error is reported. */
function validate (data: Record<string, unknown>): ErrorObject[] {
  if (validator === undefined) {
    const ajv = new Ajv({ allErrors: true, removeAdditional: true, useDefaults: true, coerceTypes: true, allowUnionTypes: true })
    addFormats.default(ajv, ['uri', 'email'])
    ajv.addVocabulary(['allowed', 'secret'])
    validator = ajv.compile(EnvSchema)
  }
  return validator(data) ? [] : validator.errors ?? []
}

/**
 * Reads and validates configuration: the schema's rules, then the rules
 * between values (ports, URLs, the image template, payment secrets...). Throws
 * a ConfigError listing every invalid setting. With no `source` it reads
 * `process.env` over a `.env` file in the working directory; with a `source`
 * object it reads only that object (tests stay independent of the machine).
 */
export function loadConfig (source?: Record<string, unknown>): AppConfig {
  const given: Record<string, unknown> = source === undefined ? { ...readDotenv(), ...process.env } : { ...source }
  const data: Record<string, unknown> = {}
  for (const name of VARIABLES) if (given[name] !== undefined) data[name] = given[name]
  const errors = validate(data)
  if (errors.length > 0) throw new ConfigError(schemaProblems(errors, given))
  const raw = data as RawEnv

  const baseUrl = (raw.BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, '')
  const corsOrigins = raw.CORS_ORIGINS.split(',').map((origin) => origin.trim()).filter(Boolean)
  // The sandbox lets administrators mark their own payments paid: on by default
  // only for the out-of-the-box install (embedded database), never silently in production.
  const paymentProviders = raw.PAYMENT_PROVIDERS ?? (raw.DATABASE_URL === undefined ? 'sandbox' : '')
  const config: AppConfig = {
    ...raw,
    BASE_URL: baseUrl,
    PORTAL_APP_URL: raw.PORTAL_APP_URL?.replace(/\/+$/, ''),
    PRODUCT_NAME: raw.PRODUCT_NAME ?? productName(raw.MAIL_FROM),
    corsOrigins,
    PAYMENT_PROVIDERS: paymentProviders,
    ADDONS_ROOT: resolve(raw.ADDONS_ROOT ?? join(raw.DATA_DIR, 'addons')),
    // An auth server elsewhere (AUTH_SERVER_URL) means none of our own as a child.
    AUTH_SERVER_PROCESS: raw.AUTH_SERVER_URL === undefined && raw.AUTH_SERVER_PROCESS,
    erpVersions: list(raw.ERP_VERSIONS),
    instanceBackends: list(raw.INSTANCE_BACKENDS) as Array<'docker' | 'kubernetes'>
  }
  const problems = derivedProblems(config)
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

function readDotenv (): Record<string, string> {
  try {
    return parseEnv(readFileSync(resolve('.env'), 'utf8')) as Record<string, string>
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw error
  }
}

function list (value: string): string[] {
  return [...new Set(value.split(',').map((item) => item.trim()).filter(Boolean))]
}

/** One problem per variable (Ajv may report several errors for one value), in schema order. */
function schemaProblems (errors: ErrorObject[], given: Record<string, unknown>): ConfigProblem[] {
  const invalid = new Set(errors.map((error) => error.instancePath.split('/')[1] ?? ''))
  return VARIABLES.filter((name) => invalid.has(name)).map((name) => {
    const info = variableInfo(name)
    const value = given[name]
    return { variable: name, value: value === undefined ? undefined : String(value), allowed: info.allowed, example: info.example, secret: info.secret }
  })
}
