import { escapeHtml, layout } from './html.ts'

export interface LoginPageInput {
  /** The hidden CSRF field's value. */
  csrf: string
  transaction?: string | undefined
  error?: string | undefined
  /** Kept after a failed attempt so the person only retypes the password. */
  email?: string | undefined
  /** PRODUCT_NAME, above the heading. */
  product?: string | undefined
  /** The "Forgot password?" link: the built-in page, or PORTAL_APP_URL's. */
  forgotUrl?: string | undefined
}

/** The built-in login page: what the auth server sends a person to when an agent asks for access. */
export function renderLoginPage ({ csrf, transaction, error, email, product, forgotUrl }: LoginPageInput): string {
  const hidden = transaction === undefined || transaction === ''
    ? ''
    : `<input type="hidden" name="oauth_transaction" value="${escapeHtml(transaction)}">`
  const note = hidden === '' ? '' : '<p class="note">An application asks to connect to your account. Sign in to continue.</p>'
  return layout('Sign in', `<h1>Sign in</h1>
${note}
${error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/login" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
${hidden}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${forgotUrl === undefined ? '' : `<p class="links"><a href="${escapeHtml(forgotUrl)}">Forgot password?</a></p>`}`, product)
}

/** After a sign-in that was not part of an agent authorization. */
export function renderSignedInPage (name: string): string {
  return layout('Signed in', `<h1>Signed in</h1>
<p>You are signed in as ${escapeHtml(name)}. You can close this window.</p>`)
}

/** A refusal the form cannot fix by itself (expired form, too many attempts). */
export function renderLoginErrorPage (title: string, message: string, retryUrl: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(retryUrl)}">Back to sign in</a></p>`)
}
