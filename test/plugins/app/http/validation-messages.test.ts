import t, { type Test } from 'tap'
import fc from 'fast-check'
import { Type } from 'typebox'
import { validationBody } from '../../../../plugins/app/http/envelope.ts'
import type { ValidationIssue } from '../../../../plugins/app/http/validation-messages.ts'
import { compileJsonValidator } from '../../../../lib/validation.ts'

interface Field { field: string, in: string, message: string, allowed?: unknown[] }
const fieldsOf = (body: ReturnType<typeof validationBody>) => (body.details as { fields: Field[] }).fields

/** What a message for people never shows: ajv's wording for a missing field, or a regular expression. */
const RAW = [/must have required property/, /\^.*\$/, /must match pattern/, /must NOT have/, /must be equal to one of the allowed values/]

function assertForPeople (t: Test, body: ReturnType<typeof validationBody>, label: string) {
  t.equal(body.code, 'VALIDATION_FAILED', `${label}: the one code of a schema failure`)
  const fields = fieldsOf(body)
  const names = fields.map((f) => f.field)
  t.equal(new Set(names).size, names.length, `${label}: every field appears once (${names.join(', ')})`)
  for (const f of fields) {
    for (const raw of RAW) t.notMatch(f.message, raw, `${label}: ${f.field}: "${f.message}"`)
    t.ok(f.message.length > 0, `${label}: ${f.field} has a message`)
  }
  if (fields.length > 0) t.ok(body.message.startsWith(`${fields[0]!.field} `), `${label}: the message starts with the field: ${body.message}`)
}

const PATHS = ['', '/name', '/company/name', '/users', '/items/0/id', '/a~1b']
const KEYWORDS = ['required', 'additionalProperties', 'enum', 'const', 'anyOf', 'oneOf', 'type', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'format', 'pattern', 'uniqueItems', 'multipleOf', 'if', 'not', 'somethingNew']
const REGEXES = ['^[a-z]+$', '^\\d{4}-\\d{2}$', '^[A-Za-z0-9_-]+$']

/** An error shaped as ajv gives them, with ajv's own (raw) messages, some inside a union's branches. */
const ajvIssue: fc.Arbitrary<ValidationIssue> = fc.record({
  instancePath: fc.constantFrom(...PATHS),
  keyword: fc.constantFrom(...KEYWORDS),
  branch: fc.constantFrom('', '/anyOf/0', '/anyOf/1', '/oneOf/2'),
  property: fc.constantFrom('users', 'name', 'email'),
  regex: fc.constantFrom(...REGEXES),
  limit: fc.integer({ min: 0, max: 500 }),
  values: fc.array(fc.oneof(fc.stringMatching(/^[a-z0-9. ]{0,6}$/), fc.integer(), fc.constant(null)), { maxLength: 5 })
}).map(({ instancePath, keyword, branch, property, regex, limit, values }) => ({
  instancePath,
  schemaPath: `#/properties${instancePath}${branch}/${keyword}`,
  keyword,
  params: {
    missingProperty: property,
    additionalProperty: property,
    allowedValues: values,
    allowedValue: values[0],
    pattern: regex,
    limit,
    type: 'string',
    format: 'email',
    multipleOf: 5
  },
  message: keyword === 'required' ? `must have required property '${property}'` : keyword === 'pattern' ? `must match pattern "${regex}"` : `must NOT have more than ${limit} characters`
}))

t.test('for any list of ajv errors: one entry per field, no ajv wording, no regular expression', async (t) => {
  fc.assert(fc.property(fc.array(ajvIssue, { maxLength: 12 }), fc.constantFrom('body', 'querystring', 'arguments'), (issues, context) => {
    const body = validationBody(issues, context)
    const fields = fieldsOf(body)
    const names = fields.map((f) => f.field)
    return body.code === 'VALIDATION_FAILED' &&
      new Set(names).size === names.length &&
      fields.every((f) => f.in === context && f.message.length > 0 && RAW.every((raw) => !raw.test(f.message))) &&
      (fields.length === 0 || body.message.startsWith(`${fields[0]!.field} `)) &&
      !RAW.some((raw) => raw.test(body.message))
  }), { numRuns: 2000 })
  t.pass('2000 random error lists')
})

const Schema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 20, pattern: '\\S', 'x-pattern-message': 'must not be blank' }),
  code: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  priority: Type.Union([Type.Literal('low'), Type.Literal('normal'), Type.Literal('high')]),
  role: Type.Optional(Type.Enum(['admin', 'user'])),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  email: Type.Optional(Type.String({ format: 'email' })),
  note: Type.Optional(Type.Union([Type.String({ maxLength: 3 }), Type.Null()])),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 2 }), { maxItems: 3, uniqueItems: true })),
  company: Type.Optional(Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }))
}, { additionalProperties: false })

t.test('for any input the project\'s ajv refuses: one entry per field, for people', async (t) => {
  const validate = compileJsonValidator(Schema)
  const keys = ['name', 'code', 'priority', 'role', 'count', 'email', 'note', 'tags', 'company', 'extra']
  const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('', ' ', 'low', 'x@example.com', 'abcd', 'ABC', 0, 101, 50, null), fc.record({ name: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }))
  let refused = 0
  fc.assert(fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 8 }), (input) => {
    if (validate(structuredClone(input))) return true
    refused++
    const body = validationBody(validate.errors ?? [], 'body')
    const fields = fieldsOf(body)
    const names = fields.map((f) => f.field)
    if (new Set(names).size !== names.length) return false
    if (!fields.every((f) => RAW.every((raw) => !raw.test(f.message)))) return false
    if (!body.message.startsWith(`${fields[0]!.field} `)) return false
    // A union of literals is said once, with every allowed value.
    const priority = fields.find((f) => f.field === 'priority')
    if (priority !== undefined && 'priority' in input && !(priority.message === 'must be one of: low, normal, high' && priority.allowed?.join() === 'low,normal,high')) return false
    return true
  }), { numRuns: 1500 })
  t.ok(refused > 500, `${refused} refused inputs checked`)
})

t.test('what each kind of failure says', async (t) => {
  const validate = compileJsonValidator(Schema)
  const say = (input: unknown) => {
    t.notOk(validate(input), JSON.stringify(input))
    return Object.fromEntries(fieldsOf(validationBody(validate.errors ?? [], 'body')).map((f) => [f.field, f]))
  }
  const missing = say({})
  t.same(Object.keys(missing).sort(), ['name', 'priority'])
  t.equal(missing.name!.message, 'is required')
  t.equal(validationBody(validate.errors ?? [], 'body').message, 'name is required; priority is required')

  const wrong = say({ name: ' ', code: 'abc', priority: 'asap', role: 'owner', count: 0, email: 'nope', extra: 1, tags: ['a', 'a', 'b', 'c'] })
  t.same(wrong.name, { field: 'name', in: 'body', message: 'must not be blank' }, 'a pattern says what it means, from the schema\'s x-pattern-message')
  t.equal(wrong.code!.message, 'is not in the expected format', 'a pattern without an x-pattern-message: no regex shown')
  t.same(wrong.priority, { field: 'priority', in: 'body', message: 'must be one of: low, normal, high', allowed: ['low', 'normal', 'high'] }, 'a union of literals collapses into one issue')
  t.same(wrong.role, { field: 'role', in: 'body', message: 'must be one of: admin, user', allowed: ['admin', 'user'] })
  t.equal(wrong.count!.message, 'must be between 1 and 100')
  t.equal(wrong.email!.message, 'must be a valid e-mail address')
  t.equal(wrong.extra!.message, 'is not an allowed field')
  t.equal(wrong['tags.0']!.message, 'must be at least 2 characters')
  t.equal(wrong.tags!.message, 'must have at most 3 items and must not contain the same item twice')

  const more = say({ name: 'x'.repeat(21), priority: 'low', note: 'long', company: { name: '' } })
  t.equal(more.name!.message, 'must be between 1 and 20 characters')
  t.same(more.note, { field: 'note', in: 'body', message: 'must be at most 3 characters' }, 'Nullable(string): the string\'s own rule, not "must be null"')
  t.equal(more['company.name']!.message, 'must be at least 1 character', 'nested fields are named by their path')
  t.equal(say({ name: 'a', priority: 'low', note: 4 }).note!.message, 'must be a string or null')
  t.equal(say({ name: 'a', priority: 'low', count: 'ten' }).count!.message, 'must be a whole number')

  const root = fieldsOf(validationBody([{ instancePath: '', schemaPath: '#/type', keyword: 'type', params: { type: 'object' } }], 'querystring'))
  t.same(root, [{ field: 'querystring', in: 'querystring', message: 'must be an object' }], 'the whole part, named by its context')
})

t.test('the front end\'s cases: a missing query field, a raw regex', async (t) => {
  assertForPeople(t, validationBody([{ instancePath: '', keyword: 'required', params: { missingProperty: 'users' }, message: 'must have required property \'users\'' }], 'querystring'), 'users')
  t.equal(validationBody([{ instancePath: '', keyword: 'required', params: { missingProperty: 'users' } }], 'querystring').message, 'users is required')
})
