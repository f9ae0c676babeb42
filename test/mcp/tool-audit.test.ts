import t from 'tap'
import fc from 'fast-check'
import { summariseArguments } from '../../mcp/tool-audit.ts'

const SECRET = 'do-not-keep-me'

t.test('secrets are redacted by field name, at any depth', async (t) => {
  const summary = summariseArguments({
    name: 'Addons', token: SECRET, password: SECRET, deploy_key: SECRET, api_key: SECRET, client_secret: SECRET,
    nested: { Authorization: SECRET, list: [{ passphrase: SECRET }] }
  }, undefined)
  t.same(summary, {
    name: 'Addons', token: '[redacted]', password: '[redacted]', deploy_key: '[redacted]', api_key: '[redacted]', client_secret: '[redacted]',
    nested: { Authorization: '[redacted]', list: ['{…}'] }
  }, 'past three levels a structure is only described')
})

t.test('and by the tool\'s schema: writeOnly and format password fields, whatever their names', async (t) => {
  const schema = { properties: { pin: { writeOnly: true }, code: { format: 'password' }, note: { type: 'string' } } }
  t.same(summariseArguments({ pin: SECRET, code: SECRET, note: 'kept' }, schema), { pin: '[redacted]', code: '[redacted]', note: 'kept' })
})

t.test('long text is cut and ids kept', async (t) => {
  const summary = summariseArguments({ instance_id: 7, message: 'x'.repeat(5000) }, undefined) as Record<string, string>
  t.equal(summary.instance_id, 7)
  t.ok(summary.message!.length < 260 && summary.message!.endsWith('(5000 characters)'))
})

t.test('property: a value under a secret-named field never appears in the summary', async () => {
  const secretName = fc.constantFrom('password', 'token', 'deploy_key', 'secret', 'refresh_token', 'Passphrase', 'ssh_private', 'credential')
  fc.assert(fc.property(secretName, fc.string(), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), (name, secret, rest) => {
    const summary = JSON.stringify(summariseArguments({ ...rest, wrapper: { [name]: `S3CR3T-${secret}` } }, undefined))
    return !summary.includes('S3CR3T-')
  }))
})
