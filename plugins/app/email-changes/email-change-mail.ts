import type { RenderedMail } from '../invitations/invitation-mail.ts'

/** The three e-mails of a change: the link to the new address, and two notices to the old one. */

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const e = escapeHtml
const BUTTON = 'display: inline-block; padding: 10px 18px; background: #2557d6; color: #fff; text-decoration: none; border-radius: 4px'

function mail (subject: string, name: string, paragraphs: string[], action: { link: string, label: string, note: string }): RenderedMail {
  const text = [`Hello ${name},`, '', ...paragraphs.flatMap((p) => [p, '']), `${action.label}:`, action.link, '', action.note, ''].join('\n')
  const html = `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #222; line-height: 1.5">
<p>Hello ${e(name)},</p>
${paragraphs.map((p) => `<p>${e(p)}</p>`).join('\n')}
<p><a href="${e(action.link)}" style="${BUTTON}">${e(action.label)}</a></p>
<p style="font-size: 13px; color: #555">Or open this link: <a href="${e(action.link)}">${e(action.link)}</a><br>
${e(action.note)}</p>
</body></html>
`
  return { subject, text, html, actionUrl: action.link }
}

export interface EmailChangeMailInput { product: string, name: string, oldEmail: string, newEmail: string }

/** To the new address: the link that makes it the login. */
export function renderConfirmEmailMail (input: EmailChangeMailInput & { link: string, ttlMinutes: number }): RenderedMail {
  return mail(`Confirm your new ${input.product} e-mail address`, input.name, [
    `Someone (hopefully you) asked to use ${input.newEmail} instead of ${input.oldEmail} to sign in to ${input.product}.`
  ], {
    link: input.link,
    label: 'Confirm the new address',
    note: `This link works once, for ${input.ttlMinutes} minutes. Until it is used, nothing changes. If you did not ask for this, ignore this e-mail.`
  })
}

/** To the old address when the change is asked for: what to do if it was not them. */
export function renderEmailChangeRequestedMail (input: EmailChangeMailInput & { resetLink: string }): RenderedMail {
  return mail(`A change of your ${input.product} e-mail address was requested`, input.name, [
    `Someone signed in to your ${input.product} account asked to change its e-mail address from ${input.oldEmail} to ${input.newEmail}. ` +
      'A confirmation link was sent to the new address; nothing changes until it is used.'
  ], {
    link: input.resetLink,
    label: 'Not you? Reset your password',
    note: 'If you did not ask for this, someone knows your password: reset it now. That signs everyone out and cancels the change. Otherwise, ignore this e-mail.'
  })
}

/** To the old address once the change is made. */
export function renderEmailChangedMail (input: EmailChangeMailInput & { signInLink: string }): RenderedMail {
  return mail(`Your ${input.product} e-mail address was changed`, input.name, [
    `The e-mail address of your ${input.product} account is now ${input.newEmail}: sign in with it from now on. This address (${input.oldEmail}) no longer receives its e-mails.`
  ], {
    link: input.signInLink,
    label: 'Sign in',
    note: 'If you did not make this change, someone else holds your account: tell your company\'s administrator at once (they can deactivate it).'
  })
}
