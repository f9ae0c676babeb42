import t from 'tap'
import fc from 'fast-check'
import { checkBranch, checkSubpath } from '../../../../plugins/app/addon-sources/addon-source-input.ts'

const part = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,15}$/)
const accepts = (check: (value: string) => unknown, value: string) => { try { check(value); return true } catch { return false } }

t.test('branch names: ordinary ones pass; any with "..", a leading "-" or "/", or odd characters are refused', async () => {
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => accepts(checkBranch, parts.join('/'))))
  fc.assert(fc.property(fc.string(), fc.string(), (a, b) => !accepts(checkBranch, `${a}..${b}`)))
  fc.assert(fc.property(fc.string(), (rest) => !accepts(checkBranch, `-${rest}`) && !accepts(checkBranch, `/${rest}`)))
  fc.assert(fc.property(fc.string({ minLength: 1 }).filter((s) => /[^A-Za-z0-9._/+-]/.test(s)), (s) => !accepts(checkBranch, s)))
})

t.test('subpaths: relative folders pass (normalised); "..", absolute paths and a leading "-" are refused', async (t) => {
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => checkSubpath(`${parts.join('/')}/`) === parts.join('/')))
  fc.assert(fc.property(fc.array(part, { maxLength: 3 }), fc.array(part, { maxLength: 3 }), (before, after) => !accepts(checkSubpath, [...before, '..', ...after].join('/'))))
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 3 }), (parts) => !accepts(checkSubpath, `/${parts.join('/')}`)))
  fc.assert(fc.property(fc.string(), (rest) => !accepts(checkSubpath, `-${rest}`)))
  t.equal(checkSubpath(''), null)
  t.equal(checkSubpath(null), null)
  t.equal(checkSubpath('.'), null)
})
