import type { RenderedMail } from '../invitations/invitation-mail.ts'

export interface PasswordResetMailInput {
  product: string
  name: string
  link: string
  ttlMinutes: number
  /** An operator forced the reset: the old password no longer works. */
  forced: boolean
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Plain text and a simple HTML alternative saying the same things. */
export function renderPasswordResetMail ({ product, name, link, ttlMinutes, forced }: PasswordResetMailInput): RenderedMail {
  const subject = `Reset your ${product} password`
  const why = forced
    ? `An administrator of ${product} has reset the password of your account: your old password no longer works.`
    : `Someone (hopefully you) asked to reset the password of your ${product} account.`
  const ignore = forced
    ? 'Until you choose a new password, you cannot sign in.'
    : 'If you did not ask for this, ignore this e-mail: your password stays as it is.'
  const text = [
    `Hello ${name},`,
    '',
    why,
    '',
    'Choose a new password here:',
    link,
    '',
    `This link works once, for ${ttlMinutes} minutes. Setting a new password signs you out everywhere, and disconnects your agents.`,
    ignore,
    ''
  ].join('\n')
  const e = escapeHtml
  const html = `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #222; line-height: 1.5">
<p>Hello ${e(name)},</p>
<p>${e(why)}</p>
<p><a href="${e(link)}" style="display: inline-block; padding: 10px 18px; background: #2557d6; color: #fff; text-decoration: none; border-radius: 4px">Choose a new password</a></p>
<p style="font-size: 13px; color: #555">Or open this link: <a href="${e(link)}">${e(link)}</a><br>
It works once, for ${ttlMinutes} minutes. Setting a new password signs you out everywhere and disconnects your agents. ${e(ignore)}</p>
</body></html>
`
  return { subject, text, html, actionUrl: link }
}
