import t from 'tap'
import fc from 'fast-check'
import { isReservedSubdomain, isSubdomain } from '../../../../lib/subdomains.ts'
import { stagingSubdomain } from '../../../../plugins/app/staging/staging-subdomain.ts'

/** Any valid subdomain: 3-40 of [a-z0-9-], not starting or ending with a hyphen. */
const subdomain = fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/)

t.test('every default staging subdomain is a valid, unreserved subdomain of at most 40 characters, distinct per number', async (t) => {
  fc.assert(fc.property(subdomain, fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 }), (parent, n, m) => {
    const made = stagingSubdomain(parent, n)
    if (!isSubdomain(made) || isReservedSubdomain(made) || made.length > 40) return false
    return n === m ? made === stagingSubdomain(parent, m) : made !== stagingSubdomain(parent, m)
  }), { numRuns: 2000 })
  t.pass('held for 2000 parents and numbers')
})

t.test('short parents keep their whole name', async (t) => {
  t.equal(stagingSubdomain('shop', 1), 'shop-staging')
  t.equal(stagingSubdomain('shop', 2), 'shop-staging-2')
  t.equal(stagingSubdomain('a'.repeat(40), 1), `${'a'.repeat(32)}-staging`)
  t.equal(stagingSubdomain(`${'a'.repeat(31)}-bbbbbbbb`, 1), `${'a'.repeat(31)}-staging`, 'a cut that would end in a hyphen loses it')
})
