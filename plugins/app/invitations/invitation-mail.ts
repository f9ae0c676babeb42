import type { UserRole } from '../users/user.entity.ts'

export interface InvitationMailInput {
  product: string
  company: string
  inviteeName: string
  inviterName: string
  role: UserRole
  link: string
  expiresAt: Date
}

export interface RenderedMail {
  subject: string
  text: string
  html: string
  actionUrl: string
}

const ROLE_WORDING: Record<UserRole, string> = { admin: 'an administrator', user: 'a team member' }

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** "2026-11-29 14:05 UTC": unambiguous for readers in any time zone. */
const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** Plain text and a simple HTML alternative saying the same things. */
export function renderInvitationMail (input: InvitationMailInput): RenderedMail {
  const { product, company, inviteeName, inviterName, role, link, expiresAt } = input
  const subject = `You're invited to join ${company} on ${product}`
  const text = [
    `Hello ${inviteeName},`,
    '',
    `${inviterName} has invited you to join ${company} on ${product} as ${ROLE_WORDING[role]}.`,
    '',
    'Accept the invitation and choose your password here:',
    link,
    '',
    `This link works once and expires on ${utc(expiresAt)}.`,
    'If you were not expecting this invitation, you can ignore this e-mail.',
    ''
  ].join('\n')
  const e = escapeHtml
  const html = `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #222; line-height: 1.5">
<p>Hello ${e(inviteeName)},</p>
<p><strong>${e(inviterName)}</strong> has invited you to join <strong>${e(company)}</strong> on ${e(product)} as ${ROLE_WORDING[role]}.</p>
<p><a href="${e(link)}" style="display: inline-block; padding: 10px 18px; background: #2557d6; color: #fff; text-decoration: none; border-radius: 4px">Accept the invitation</a></p>
<p style="font-size: 13px; color: #555">Or open this link: <a href="${e(link)}">${e(link)}</a><br>
It works once and expires on ${utc(expiresAt)}. If you were not expecting this invitation, you can ignore this e-mail.</p>
</body></html>
`
  return { subject, text, html, actionUrl: link }
}
