import fc from 'fast-check'
import t from 'tap'
import { renderTwoFactorResetMail } from '../../../../plugins/app/two-factor/two-factor-reset-mail.ts'

/** Names people and admins choose: anything, markup included. */
const nameArb = fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.constantFrom('<script>alert(1)</script>', 'O\'Brien & "Sons"', '<img src=x onerror=alert(1)>'))

const input = fc.record({
  product: fc.constantFrom('ERP Portal', 'Acme <Cloud>'),
  name: nameArb,
  resetBy: fc.record({ name: nameArb, admin: fc.boolean() }),
  signInLink: fc.constantFrom('http://portal.test/login', 'https://app.example.com/?a=1&b=2'),
  enrolmentRequired: fc.boolean()
})

t.test('the HTML part never carries a name\'s markup; the text part says who, what next, and links to sign in', async (t) => {
  fc.assert(fc.property(input, (mail) => {
    const rendered = renderTwoFactorResetMail(mail)
    const tags = rendered.html.match(/<[a-z!/][^>]*>/gi) ?? []
    // Only the template's own tags: no name injects one.
    const allowed = /^<(!doctype html|\/?html|\/?body[^>]*|\/?p[^>]*|\/?a[^>]*)>$/i
    if (!tags.every((tag) => allowed.test(tag))) return false
    if (/<script|<img/i.test(rendered.html)) return false
    const who = mail.resetBy.admin ? 'an administrator of your company' : `of the ${mail.product} operations team`
    return rendered.subject === `Your ${mail.product} two-factor authentication was reset` &&
      rendered.text.includes(`Hello ${mail.name},`) &&
      rendered.text.includes(`${mail.resetBy.name}, ${who},`) &&
      rendered.text.includes(mail.enrolmentRequired ? 'set up an authenticator app again' : 'sign in with your password alone') &&
      rendered.text.includes(`Sign in: ${mail.signInLink}`) &&
      rendered.actionUrl === mail.signInLink
  }), { numRuns: 300 })
  t.pass('300 mails rendered safely')
})
