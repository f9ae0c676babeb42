import { ACCOUNT_PAGES } from '../lib/account-links.ts'
import { escapeHtml, layout } from './html.ts'

/**
 * The account pages the service serves when no front end (PORTAL_APP_URL)
 * does: accept an invitation, ask for a password reset, set a new password,
 * confirm a new e-mail address.
 * Same look and CSRF protection as the login page.
 */

const e = escapeHtml
const alert = (error: string | undefined) => error === undefined ? '' : `<p class="error" role="alert">${e(error)}</p>\n`
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${e(value)}">`
const newPasswordFields = (rule: string) => `<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<p class="note">${e(rule)}</p>
<label for="password_confirm">Repeat the new password</label>
<input id="password_confirm" name="password_confirm" type="password" autocomplete="new-password" required>`

export interface InvitationPageInput {
  product: string
  csrf: string
  token: string
  company: string
  email: string
  name: string
  role: string
  rule: string
  error?: string | undefined
}

export function renderAcceptInvitationPage (input: InvitationPageInput): string {
  return layout('Accept the invitation', `<h1>Join ${e(input.company)}</h1>
<p class="note">You are invited as ${input.role === 'admin' ? 'an administrator' : 'a team member'}. Choose your password to create your account.</p>
${alert(input.error)}<form method="post" action="${ACCOUNT_PAGES.acceptInvitation}" novalidate>
${hidden('csrf', input.csrf)}
${hidden('token', input.token)}
<label for="email">Email</label>
<input id="email" type="email" value="${e(input.email)}" readonly>
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${e(input.name)}">
${newPasswordFields(input.rule)}
<button type="submit">Accept</button>
</form>`, input.product)
}

export function renderForgotPasswordPage (input: { product: string, csrf: string, email?: string | undefined, error?: string | undefined }): string {
  return layout('Forgot password', `<h1>Reset your password</h1>
<p class="note">Enter the e-mail address of your account: we will send you a link to choose a new password.</p>
${alert(input.error)}<form method="post" action="${ACCOUNT_PAGES.forgotPassword}" novalidate>
${hidden('csrf', input.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${e(input.email ?? '')}">
<button type="submit">Send the link</button>
</form>
<p class="links"><a href="/login">Back to sign in</a></p>`, input.product)
}

export function renderResetPasswordPage (input: { product: string, csrf: string, token: string, email: string, rule: string, error?: string | undefined }): string {
  return layout('Choose a new password', `<h1>Choose a new password</h1>
<p class="note">For ${e(input.email)}. Setting it signs you out everywhere and disconnects your agents.</p>
${alert(input.error)}<form method="post" action="${ACCOUNT_PAGES.resetPassword}" novalidate>
${hidden('csrf', input.csrf)}
${hidden('token', input.token)}
${newPasswordFields(input.rule)}
<button type="submit">Set the new password</button>
</form>`, input.product)
}

export function renderConfirmEmailPage (input: { product: string, csrf: string, token: string, email: string, newEmail: string, error?: string | undefined }): string {
  return layout('Confirm your new e-mail address', `<h1>Confirm your new e-mail address</h1>
<p class="note">Your account's e-mail address, and your login, will be <strong>${e(input.newEmail)}</strong> instead of ${e(input.email)}.</p>
${alert(input.error)}<form method="post" action="${ACCOUNT_PAGES.confirmEmail}" novalidate>
${hidden('csrf', input.csrf)}
${hidden('token', input.token)}
<button type="submit">Confirm</button>
</form>`, input.product)
}

/** The end of a journey (or a refusal the form cannot fix), with where to go next. */
export function renderAccountMessagePage (input: { product: string, title: string, message: string, error?: boolean, link: { href: string, text: string } }): string {
  const paragraph = input.error === true ? `<p class="error" role="alert">${e(input.message)}</p>` : `<p>${e(input.message)}</p>`
  return layout(input.title, `<h1>${e(input.title)}</h1>
${paragraph}
<p class="links"><a href="${e(input.link.href)}">${e(input.link.text)}</a></p>`, input.product)
}
