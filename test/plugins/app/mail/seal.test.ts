import t from 'tap'
import { createMailSealer } from '../../../../plugins/app/mail/mail-seal.ts'

const SECRET = 'a-jwt-secret-that-is-long-enough-0123456789'
const body = { text: 'Open http://x/invitation/accept?token=SECRET-TOKEN', html: '<a>SECRET-TOKEN</a>', actionUrl: 'http://x/?token=SECRET-TOKEN' }

t.test('sealed bodies open with the same secret and row id only', async (t) => {
  const sealer = createMailSealer(SECRET)
  const sealed = sealer.seal(body, 'row-1')
  t.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
  t.notMatch(sealed, /SECRET-TOKEN/)
  t.same(sealer.open(sealed, 'row-1'), body)
  t.not(sealer.seal(body, 'row-1'), sealed, 'a fresh IV every time')

  t.throws(() => sealer.open(sealed, 'row-2'), 'bound to its row (moved to another row, it does not open)')
  t.throws(() => createMailSealer(`${SECRET}-rotated`).open(sealed, 'row-1'), 'another JWT_SECRET cannot open it')
  const [version, iv, tag, ciphertext] = sealed.split('.')
  const flipped = Buffer.from(ciphertext ?? '', 'base64url')
  flipped[0] = (flipped[0] ?? 0) ^ 1
  t.throws(() => sealer.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'row-1'), 'tampering is detected')
  t.throws(() => sealer.open('v0.a.b.c', 'row-1'), /Unknown sealed text format/)
})
