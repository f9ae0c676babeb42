import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createCodePrefetch } from '../../auth-server/code-prefetch.ts'

t.test('a kept grant is read back as a copy, and "not found" is kept too', async (t) => {
  const prefetch = createCodePrefetch()
  prefetch.keepGrant('g1', { accountId: 'a', clientId: 'c' })
  const first = prefetch.grant('g1')
  t.same(first, { found: true, payload: { accountId: 'a', clientId: 'c' } })
  first.payload!.accountId = 'changed'
  t.equal(prefetch.grant('g1').payload?.accountId, 'a', 'the library may change what it gets; the kept one stays')
  prefetch.keepGrant('gone', undefined)
  t.same(prefetch.grant('gone'), { found: true }, 'a grant the code named but that is gone: found as missing, no second read')
  t.same(prefetch.grant('never'), { found: false })
})

t.test('entries are good for their time only', async (t) => {
  const prefetch = createCodePrefetch(30)
  prefetch.keepAccount('u1', undefined)
  t.same(prefetch.account('u1'), { found: true })
  await sleep(60)
  t.same(prefetch.account('u1'), { found: false }, 'expired: read from the database again')
})

t.test('at most maxEntries are kept, the oldest go first', async (t) => {
  const prefetch = createCodePrefetch(60_000, 3)
  for (const id of ['a', 'b', 'c', 'd']) prefetch.keepGrant(id, { id })
  t.same(prefetch.grant('a'), { found: false })
  t.same(['b', 'c', 'd'].map((id) => prefetch.grant(id).found), [true, true, true])
})
