import fc from 'fast-check'
import t from 'tap'
import {
  MAX_STORAGE_GB, MAX_USERS, normaliseRecommendationQuery, queryValidationError, type RawRecommendationQuery
} from '../../../../plugins/app/plans/recommendation-request.ts'
import { toErrorBody } from '../../../../plugins/app/http/envelope.ts'

const normalised = (query: RawRecommendationQuery) => {
  const result = normaliseRecommendationQuery(query)
  return result.ok ? result.request : { errors: result.errors.map((e) => e.field) }
}

t.test('the parameter table, rule by rule', async (t) => {
  t.same(normalised({}), { users: 1, storage: 0, billingCycle: 'monthly' }, 'defaults')
  t.same(normalised({ users: '', storage: '  ', billing_cycle: '' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'blank is absent')
  t.same(normalised({ users: '-5' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'negative users clamp to 1')
  t.same(normalised({ users: '0' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'zero users clamp to 1')
  t.same(normalised({ users: '2.7' }), { users: 2, storage: 0, billingCycle: 'monthly' }, 'users round down')
  t.same(normalised({ users: '0.9' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'round down, then clamp')
  t.same(normalised({ storage: '1.2' }), { users: 1, storage: 2, billingCycle: 'monthly' }, 'storage rounds up to whole GB')
  t.same(normalised({ storage: '-3' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'negative storage is 0')
  t.same(normalised({ storage: '-0.5' }), { users: 1, storage: 0, billingCycle: 'monthly' })
  t.ok(Object.is((normaliseRecommendationQuery({ storage: '-0.5' }) as { request: { storage: number } }).request.storage, 0), 'never -0')
  t.same(normalised({ billing_cycle: 'yearly' }), { users: 1, storage: 0, billingCycle: 'yearly' })
  t.same(normalised({ billing_cycle: 'monthly' }), { users: 1, storage: 0, billingCycle: 'monthly' })
  for (const other of ['weekly', 'YEARLY', ' yearly', 'annual', '1', 'null']) {
    t.equal((normalised({ billing_cycle: other }) as { billingCycle: string }).billingCycle, 'monthly', `billing_cycle=${other} falls back`)
  }
  t.equal((normalised({ billing_cycle: ['yearly', 'yearly'] }) as { billingCycle: string }).billingCycle, 'monthly', 'repeated falls back')
  t.same(normalised({ users: ' 12 ', storage: '+3', billing_cycle: 'yearly' }), { users: 12, storage: 3, billingCycle: 'yearly' }, 'spaces and a plus sign')
  t.same(normalised({ users: '1e3', storage: '.5' }), { users: 1000, storage: 1, billingCycle: 'monthly' }, 'exponent and bare fraction')
  t.same(normalised({ users: String(MAX_USERS), storage: String(MAX_STORAGE_GB) }), { users: MAX_USERS, storage: MAX_STORAGE_GB, billingCycle: 'monthly' }, 'the maxima')
  t.same(normalised({ users: '-1e400' }), { users: 1, storage: 0, billingCycle: 'monthly' }, 'a huge negative is still negative')
})

t.test('the 400s name the field', async (t) => {
  const cases: Array<[RawRecommendationQuery, string[]]> = [
    [{ users: 'abc' }, ['users']],
    [{ storage: 'NaN' }, ['storage']],
    [{ storage: 'Infinity' }, ['storage']],
    [{ users: '-Infinity' }, ['users']],
    [{ users: '1e12' }, ['users']],
    [{ users: '1e400' }, ['users']],
    [{ users: String(MAX_USERS + 1) }, ['users']],
    [{ storage: String(MAX_STORAGE_GB) + '.1' }, ['storage']],
    [{ users: '0x10' }, ['users']],
    [{ users: '1,5' }, ['users']],
    [{ users: '5 users' }, ['users']],
    [{ users: 'abc', storage: 'def', billing_cycle: 'weekly' }, ['users', 'storage']]
  ]
  for (const [query, fields] of cases) t.same(normalised(query), { errors: fields }, JSON.stringify(query))

  const { status, body } = toErrorBody(queryValidationError([{ field: 'users', message: 'must be a number of users (at most 100000)' }]) as never)
  t.equal(status, 400)
  t.equal(body.code, 'VALIDATION_FAILED')
  t.match(body.details, { fields: [{ field: 'users', in: 'querystring', message: /must be a number/ }] })
})

const decimalText = (value: number) => fc.constantFrom(String(value), ` ${value} `, value >= 0 ? `+${value}` : String(value), value.toExponential())

t.test('for any decimal number: users rounded down and at least 1, storage rounded up and at least 0, or a 400 above the maximum', async () => {
  const number = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -2 * MAX_USERS, max: 2 * MAX_USERS }),
    fc.integer({ min: -10, max: 200 }),
    fc.double({ noNaN: true, noDefaultInfinity: true })
  )
  fc.assert(fc.property(number.chain((n) => fc.tuple(fc.constant(n), decimalText(n))), fc.constantFrom('users', 'storage'), ([value, text], field) => {
    const result = normaliseRecommendationQuery({ [field]: text })
    const expected = field === 'users' ? Math.max(1, Math.floor(value)) : Math.max(0, Math.ceil(value))
    const max = field === 'users' ? MAX_USERS : MAX_STORAGE_GB
    if (expected > max) return !result.ok && result.errors.length === 1 && result.errors[0]?.field === field
    if (!result.ok) return false
    const got = field === 'users' ? result.request.users : result.request.storage
    return got === expected && Number.isSafeInteger(got) && !Object.is(got, -0)
  }), { numRuns: 2000 })
})

t.test('for any text at all: a well-formed request or errors naming only the offending fields, never a throw', async () => {
  const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: fc.constantFrom(...'0123456789.eE+- xabNIfinty'), maxLength: 10 }))
  fc.assert(fc.property(fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), fc.option(fc.oneof(text, fc.array(text)), { nil: undefined }), (users, storage, cycle) => {
    const result = normaliseRecommendationQuery({ users, storage, billing_cycle: cycle })
    if (!result.ok) return result.errors.length > 0 && result.errors.every((e) => (e.field === 'users' && users !== undefined) || (e.field === 'storage' && storage !== undefined))
    const { users: u, storage: s, billingCycle } = result.request
    return Number.isSafeInteger(u) && u >= 1 && u <= MAX_USERS && Number.isSafeInteger(s) && s >= 0 && s <= MAX_STORAGE_GB &&
      billingCycle === (cycle === 'yearly' ? 'yearly' : 'monthly')
  }), { numRuns: 3000 })
})
