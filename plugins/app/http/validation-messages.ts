/**
 * Schema failures (ajv errors) as messages for people: one issue per field, named by its
 * path ("company.name"), saying what the field must be: "is required", "must be one of:
 * low, normal, high", "must be between 3 and 200 characters". Never ajv's own wording
 * ("must have required property 'x'"), never a raw regular expression: a `pattern` is
 * described by the schema's `x-pattern-message` (a keyword of ours that ajv ignores), or
 * generically. Reads the failing schema from `parentSchema` (ajv's `verbose` option,
 * lib/validation.ts) where there is one, and the error's `params` otherwise.
 */

import { FORMAT_NAMES, oneOf, range, typeList, type Schema } from './validation-wording.ts'

export interface ValidationIssue {
  instancePath?: string
  schemaPath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
  parentSchema?: unknown
  data?: unknown
}

export interface FieldIssue {
  field: string
  in: string
  message: string
  allowed?: unknown[]
}

const UNION_KEYWORDS = new Set(['anyOf', 'oneOf'])

/** One issue per field, in the order the fields first failed. */
export function describeIssues (issues: ValidationIssue[], context: string): FieldIssue[] {
  const unions = issues.filter((issue) => UNION_KEYWORDS.has(issue.keyword ?? '') && issue.schemaPath !== undefined)
  const byField = new Map<string, { messages: string[], allowed?: unknown[] }>()
  const chosen = new Map(unions.map((union) => [union, chosenBranch(union)]))
  for (const issue of issues) {
    // Said once, by the anyOf/oneOf it belongs to; unless the value's type picks one branch
    // (a string for Nullable(string)): then that branch's own errors say it, and the union is silent.
    const union = unions.find((candidate) => candidate !== issue && isBranchOf(issue, candidate) && !inBranch(issue, candidate, chosen.get(candidate)))
    if (union !== undefined) continue
    const branch = chosen.get(issue)
    if (branch !== undefined && issues.some((other) => other !== issue && inBranch(other, issue, branch))) continue
    const { field, message, allowed } = describe(issue, issues)
    const key = field === '' ? context : field
    const entry = byField.get(key) ?? { messages: [] }
    if (!entry.messages.includes(message)) entry.messages.push(message)
    if (allowed !== undefined) entry.allowed = [...new Set([...(entry.allowed ?? []), ...allowed])]
    byField.set(key, entry)
  }
  // An `if` failure only repeats what its `then`/`else` said.
  return [...byField].map(([field, { messages, allowed }]) => {
    const said = messages.length > 1 ? messages.filter((message) => message !== INVALID) : messages
    return { field, in: context, message: said.join(' and '), ...(allowed === undefined ? {} : { allowed }) }
  })
}

const INVALID = 'is invalid'

/** An error raised inside one branch of a union (its schema path lies under the union's). */
function isBranchOf (issue: ValidationIssue, union: ValidationIssue): boolean {
  return issue.schemaPath !== undefined && issue.schemaPath.startsWith(`${union.schemaPath ?? ''}/`) &&
    (issue.instancePath ?? '').startsWith(union.instancePath ?? '')
}

function inBranch (issue: ValidationIssue, union: ValidationIssue, branch: number | undefined): boolean {
  return branch !== undefined && (issue.schemaPath ?? '').startsWith(`${union.schemaPath ?? ''}/${branch}/`)
}

/** The one branch of a union whose declared type the value has, when exactly one has it and it is not a list of literals. */
function chosenBranch (union: ValidationIssue): number | undefined {
  if (!isSchema(union.parentSchema) || !('data' in union)) return undefined
  const branches = union.parentSchema[union.keyword ?? '']
  if (!Array.isArray(branches)) return undefined
  const typed = branches.flatMap((branch, index) => isSchema(branch) && literalsOf(branch) === undefined && hasType(branch.type, union.data) ? [index] : [])
  return typed.length === 1 ? typed[0] : undefined
}

function hasType (type: unknown, data: unknown): boolean {
  if (Array.isArray(type)) return type.some((one) => hasType(one, data))
  switch (type) {
    case 'null': return data === null
    case 'array': return Array.isArray(data)
    case 'object': return isSchema(data)
    case 'integer': return Number.isInteger(data)
    case 'number': return typeof data === 'number'
    case 'string': return typeof data === 'string'
    case 'boolean': return typeof data === 'boolean'
    default: return false
  }
}

function fieldOf (instancePath: string | undefined, child?: unknown): string {
  const parts = (instancePath ?? '').split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
  if (typeof child === 'string' && child !== '') parts.push(child)
  return parts.join('.')
}

function describe (issue: ValidationIssue, all: ValidationIssue[]): { field: string, message: string, allowed?: unknown[] } {
  const params = issue.params ?? {}
  const schema = isSchema(issue.parentSchema) ? issue.parentSchema : {}
  const field = fieldOf(issue.instancePath)
  switch (issue.keyword) {
    case 'required':
      return { field: fieldOf(issue.instancePath, params.missingProperty), message: 'is required' }
    case 'dependentRequired':
    case 'dependencies':
      return { field: fieldOf(issue.instancePath, params.missingProperty), message: `is required when ${String(params.property)} is given` }
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return { field: fieldOf(issue.instancePath, params.additionalProperty ?? params.unevaluatedProperty), message: 'is not an allowed field' }
    case 'enum':
      return oneOf(field, Array.isArray(params.allowedValues) ? params.allowedValues : (Array.isArray(schema.enum) ? schema.enum : []))
    case 'const':
      return oneOf(field, [params.allowedValue ?? schema.const])
    case 'anyOf':
    case 'oneOf':
      return { field, ...describeUnion(issue, schema, all) }
    case 'type':
      return { field, message: `must be ${typeList(params.type)}` }
    case 'minLength':
    case 'maxLength':
      return { field, message: range(schema, params, 'minLength', 'maxLength', issue.keyword, 'character') }
    case 'minItems':
    case 'maxItems':
      return { field, message: range(schema, params, 'minItems', 'maxItems', issue.keyword, 'item', 'have') }
    case 'minProperties':
    case 'maxProperties':
      return { field, message: range(schema, params, 'minProperties', 'maxProperties', issue.keyword, 'field', 'have') }
    case 'minimum':
    case 'maximum':
      return { field, message: range(schema, params, 'minimum', 'maximum', issue.keyword) }
    case 'exclusiveMinimum':
      return { field, message: `must be greater than ${String(params.limit)}` }
    case 'exclusiveMaximum':
      return { field, message: `must be less than ${String(params.limit)}` }
    case 'multipleOf':
      return { field, message: `must be a multiple of ${String(params.multipleOf)}` }
    case 'format':
      return { field, message: `must be ${FORMAT_NAMES[String(params.format)] ?? `a valid ${String(params.format)}`}` }
    case 'pattern':
      return { field, message: typeof schema['x-pattern-message'] === 'string' ? schema['x-pattern-message'] : 'is not in the expected format' }
    case 'uniqueItems':
      return { field, message: 'must not contain the same item twice' }
    case 'not':
      return { field, message: 'is not allowed' }
    case 'propertyNames':
      return { field, message: 'has a field name that is not allowed' }
    default:
      return { field, message: INVALID }
  }
}

function isSchema (value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The literal values a branch allows (`const`, `enum`, `type: null`), or undefined when it allows more. */
function literalsOf (branch: unknown): unknown[] | undefined {
  if (!isSchema(branch)) return undefined
  if ('const' in branch) return [branch.const]
  if (Array.isArray(branch.enum)) return branch.enum
  if (branch.type === 'null') return [null]
  if (Array.isArray(branch.anyOf)) {
    const nested = branch.anyOf.map(literalsOf)
    return nested.every((values) => values !== undefined) ? nested.flat() : undefined
  }
  return undefined
}

/** A union of literals: "must be one of: a, b"; of types: "must be a string or null"; else its branches' first words. */
function describeUnion (issue: ValidationIssue, schema: Schema, all: ValidationIssue[]): { message: string, allowed?: unknown[] } {
  const branches = Array.isArray(schema[issue.keyword ?? '']) ? schema[issue.keyword ?? ''] as unknown[] : []
  const literals = branches.length > 0 ? branches.map(literalsOf) : []
  if (literals.length > 0 && literals.every((values) => values !== undefined)) {
    const { message, allowed } = oneOf('', [...new Set(literals.flat())])
    return { message, allowed }
  }
  // Every branch a type, and the value of none of them (or the branches no more than types): name the types.
  const typed = branches.length > 0 && branches.every((branch) => isSchema(branch) && branch.type !== undefined)
  const wrongType = 'data' in issue && !branches.some((branch) => isSchema(branch) && hasType(branch.type, issue.data))
  if (typed && (wrongType || branches.every((branch) => Object.keys(branch as Schema).every((key) => key === 'type' || !isConstraint(key))))) {
    return { message: `must be ${typeList(branches.flatMap((branch) => (branch as Schema).type))}` }
  }
  // No schema to read (not verbose): the values its branches' own errors name, when they all name one.
  const inside = all.filter((other) => other !== issue && isBranchOf(other, issue) && other.instancePath === issue.instancePath)
  const named = inside.map((other) => other.keyword === 'const' ? [other.params?.allowedValue] : (other.keyword === 'enum' && Array.isArray(other.params?.allowedValues) ? other.params.allowedValues : undefined))
  if (named.length > 0 && named.every((values) => values !== undefined)) {
    const { message, allowed } = oneOf('', [...new Set(named.flat())])
    return { message, allowed }
  }
  return { message: 'does not match any of the allowed forms' }
}

const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$id', '$comment', 'x-pattern-message'])
function isConstraint (key: string): boolean {
  return !ANNOTATIONS.has(key)
}
