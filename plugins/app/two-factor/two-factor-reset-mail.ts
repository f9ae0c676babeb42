import type { RenderedMail } from '../invitations/invitation-mail.ts'

export interface TwoFactorResetMailInput {
  product: string
  /** The person whose factor was removed. */
  name: string
  /** Who removed it: an administrator of the person's company, or the service's operator. */
  resetBy: { name: string, admin: boolean }
  /** Where to sign in. */
  signInLink: string
  /** The company requires a factor: the next login leads to setting one up. */
  enrolmentRequired: boolean
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The notice that an administrator removed a person's second factor: it tells
 * the person what changed, and who to ask when they did not expect it (the
 * notice is how a reset done behind their back comes to light).
 */
export function renderTwoFactorResetMail ({ product, name, resetBy, signInLink, enrolmentRequired }: TwoFactorResetMailInput): RenderedMail {
  const subject = `Your ${product} two-factor authentication was reset`
  const who = resetBy.admin ? `${resetBy.name}, an administrator of your company,` : `${resetBy.name}, of the ${product} operations team,`
  const what = `${who} removed the second factor (authenticator app and recovery codes) of your ${product} account. ` +
    'You have been signed out everywhere and your connected agents were disconnected.'
  const next = enrolmentRequired
    ? 'Your company requires two-factor authentication: when you next sign in with your password, you will be asked to set up an authenticator app again.'
    : 'You can now sign in with your password alone. We recommend turning two-factor authentication on again in your account settings.'
  const warn = resetBy.admin
    ? `If you did not ask for this, tell ${resetBy.name} or another administrator at once, and change your password.`
    : 'If you did not ask for this, tell an administrator of your company at once, and change your password.'
  const text = [`Hello ${name},`, '', what, '', next, '', `Sign in: ${signInLink}`, '', warn, ''].join('\n')
  const e = escapeHtml
  const html = `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #222; line-height: 1.5">
<p>Hello ${e(name)},</p>
<p>${e(what)}</p>
<p>${e(next)}</p>
<p><a href="${e(signInLink)}" style="display: inline-block; padding: 10px 18px; background: #2557d6; color: #fff; text-decoration: none; border-radius: 4px">Sign in</a></p>
<p style="font-size: 13px; color: #555">${e(warn)}</p>
</body></html>
`
  return { subject, text, html, actionUrl: signInLink }
}
