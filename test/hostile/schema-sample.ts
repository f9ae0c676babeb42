import { randomUUID } from 'node:crypto'

type Schema = Record<string, any>

/**
 * A plausible valid value for a JSON Schema (as the OpenAPI document and
 * tools/list publish it), so that a request with one hostile field gets past
 * the others and the hostile value reaches as deep as it can.
 */
export function sampleOf (schema: Schema | undefined, name = ''): unknown {
  if (schema === undefined) return 'sample'
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (schema.default !== undefined) return schema.default
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return sampleOf(schema[key].find((option: Schema) => option.type !== 'null') ?? schema[key][0], name)
  }
  const type = [schema.type].flat().find((item) => item !== 'null')
  switch (type) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(schema.minimum ?? 1, 1), schema.maximum ?? 1)
    case 'boolean':
      return true
    case 'array':
      return []
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, child] of Object.entries<Schema>(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(key)) out[key] = sampleOf(child, key)
      }
      return out
    }
    default:
      return sampleString(schema, name)
  }
}

function sampleString (schema: Schema, name: string): string {
  if (schema.format === 'uuid') return randomUUID()
  if (schema.format === 'email' || name === 'email') return `hostile-${randomUUID().slice(0, 8)}@example.com`
  if (schema.format === 'date-time') return new Date().toISOString()
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/'
  const text = name === 'subdomain' ? `h${randomUUID().slice(0, 8)}` : 'Sample text'
  const min = schema.minLength ?? 0
  return text.length >= min ? text.slice(0, schema.maxLength ?? text.length) : text.padEnd(min, 'x')
}
