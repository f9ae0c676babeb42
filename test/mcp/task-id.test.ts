/**
 * Task ids of the Tasks extension (mcp/modern/task-id.ts): what one carries comes back as it was,
 * and any change to an id, or an id made with another key, is no task at all.
 */
import t from 'tap'
import fc from 'fast-check'
import { decodeTaskId, encodeTaskId, taskIdKey, type TaskClaims } from '../../mcp/modern/task-id.ts'

const key = taskIdKey('a-jwt-secret-of-this-portal')

const claims: fc.Arbitrary<TaskClaims> = fc.record({
  tool: fc.constantFrom('create_backup', 'stop_instance', 'install_module', 'sync_addon_source'),
  subject: fc.oneof(
    fc.record({ kind: fc.constant('instance' as const), instanceId: fc.integer({ min: 1 }) }),
    fc.record({ kind: fc.constant('backup' as const), instanceId: fc.integer({ min: 1 }), backupId: fc.integer({ min: 1 }) }),
    fc.record({ kind: fc.constant('addon_source' as const), sourceId: fc.integer({ min: 1 }) })
  ),
  base: fc.dictionary(fc.string({ maxLength: 8 }).filter((name) => name !== '__proto__'), fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 20 }))),
  tenantId: fc.uuid(),
  grantId: fc.string({ minLength: 1, maxLength: 40 }),
  createdAt: fc.integer({ min: 0, max: 4_102_444_800_000 })
})

t.test('an id gives back what it carries', async (t) => {
  fc.assert(fc.property(claims, (value) => {
    const decoded = decodeTaskId(key, encodeTaskId(key, value))
    t.same(decoded && { tool: decoded.tool, subject: decoded.subject, base: decoded.base, tenantId: decoded.tenantId, grantId: decoded.grantId, createdAt: decoded.createdAt }, value)
  }), { numRuns: 50 })
  const value = fc.sample(claims, 1)[0]!
  t.not(encodeTaskId(key, value), encodeTaskId(key, value), 'two ids of the same job differ (a random nonce)')
})

t.test('any changed character, or another key, and it is no task', async (t) => {
  const other = taskIdKey('another-portal')
  fc.assert(fc.property(claims, fc.nat(), fc.constantFrom(...'ABCdef0129-_.'), (value, at, replacement) => {
    const id = encodeTaskId(key, value)
    const index = at % id.length
    fc.pre(id[index] !== replacement)
    const changed = `${id.slice(0, index)}${replacement}${id.slice(index + 1)}`
    return decodeTaskId(key, changed) === undefined && decodeTaskId(other, id) === undefined
  }), { numRuns: 200 })
  for (const junk of ['', '.', 'abc', 'abc.def', 'a.b.c']) t.equal(decodeTaskId(key, junk), undefined, JSON.stringify(junk))
})
