/**
 * Every environment variable the service reads: its type, range, default, and
 * the words docs/configuration.md and the start-up messages are made from.
 *
 * Extra keywords on each variable (registered with Ajv in env.ts):
 * - `allowed`: what a valid value is, in words, where the type and range do not say it;
 * - `secret`: the value is never shown (messages print `(hidden)`);
 * - `examples`: the first one is the example in messages and docs (else the default).
 */
import { Type, type TSchema } from 'typebox'
import { AGENTS_SECTIONS } from './sections/agents.ts'
import { INSTANCES_SECTIONS } from './sections/instances.ts'
import { OPERATIONS_SECTIONS } from './sections/operations.ts'
import { SERVICE_SECTIONS } from './sections/service.ts'

export { STANDALONE_AUTH_PORT } from './schema-kinds.ts'

/** Every variable by section, in the order the docs list them. */
export const ENV_SECTIONS = { ...SERVICE_SECTIONS, ...INSTANCES_SECTIONS, ...OPERATIONS_SECTIONS, ...AGENTS_SECTIONS }

export const EnvSchema = Type.Object({
  ...ENV_SECTIONS.HTTP,
  ...ENV_SECTIONS.Database,
  ...ENV_SECTIONS.Secrets,
  ...ENV_SECTIONS['Rate limits'],
  ...ENV_SECTIONS['Two-factor authentication'],
  ...ENV_SECTIONS['E-mail and invitations'],
  ...ENV_SECTIONS['Payments and trials'],
  ...ENV_SECTIONS['Support staff'],
  ...ENV_SECTIONS['Instance logs'],
  ...ENV_SECTIONS['Demo data'],
  ...ENV_SECTIONS.Instances,
  ...ENV_SECTIONS.Docker,
  ...ENV_SECTIONS.Kubernetes,
  ...ENV_SECTIONS['Background jobs'],
  ...ENV_SECTIONS['Instance metrics'],
  ...ENV_SECTIONS['Service metrics (Prometheus)'],
  ...ENV_SECTIONS.Backups,
  ...ENV_SECTIONS['Staging copies'],
  ...ENV_SECTIONS.Webhooks,
  ...ENV_SECTIONS['Addon sources (Git)'],
  ...ENV_SECTIONS['Agent access (OAuth authorization server)']
}, { additionalProperties: false })

/** The words about one variable, read from its schema. */
export interface VariableInfo {
  name: string
  section: string
  description: string
  /** What a valid value is, in words. */
  allowed: string
  example: string
  default: string | undefined
  secret: boolean
}

interface Annotated {
  type?: string
  minimum?: number
  maximum?: number
  minLength?: number
  default?: unknown
  description?: string
  examples?: unknown[]
  allowed?: string
  secret?: boolean
  anyOf?: Array<{ const?: unknown }>
}

export function variableInfo (name: string): VariableInfo {
  for (const [section, variables] of Object.entries(ENV_SECTIONS)) {
    const schema = (variables as Record<string, TSchema>)[name] as Annotated | undefined
    if (schema !== undefined) {
      return {
        name,
        section,
        description: schema.description ?? '',
        allowed: allowedText(schema),
        example: String(schema.examples?.[0] ?? schema.default ?? ''),
        default: schema.default === undefined ? undefined : String(schema.default),
        secret: schema.secret === true
      }
    }
  }
  throw new RangeError(`no such variable: ${name}`)
}

export const VARIABLES: readonly string[] = Object.values(ENV_SECTIONS).flatMap((variables) => Object.keys(variables))

function allowedText (schema: Annotated): string {
  if (schema.allowed !== undefined) return schema.allowed
  if (schema.anyOf !== undefined) return `one of ${schema.anyOf.map((option) => String(option.const)).join(', ')}`
  if (schema.type === 'boolean') return 'true or false'
  if (schema.type === 'integer') {
    if (schema.maximum === undefined) return `an integer of at least ${schema.minimum ?? 0}`
    return `an integer from ${schema.minimum ?? 0} to ${schema.maximum}`
  }
  if (schema.minLength !== undefined && schema.minLength > 1) return `at least ${schema.minLength} characters`
  return 'a non-empty string'
}
