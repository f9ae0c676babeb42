import { escapeHtml, layout } from './html.ts'

export interface SecondStepPageInput {
  /** The hidden CSRF field's value. */
  csrf: string
  /** The login challenge the right password opened. */
  challenge: string
  transaction?: string | undefined
  error?: string | undefined
}

/** After the right password, for a person with a second factor: the code of their app, or a recovery code. */
export function renderSecondStepPage ({ csrf, challenge, transaction, error }: SecondStepPageInput): string {
  const hidden = transaction === undefined || transaction === ''
    ? ''
    : `<input type="hidden" name="oauth_transaction" value="${escapeHtml(transaction)}">`
  return layout('Two-step verification', `<h1>Two-step verification</h1>
<p class="note">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
${error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/login/2fa" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<input type="hidden" name="challenge" value="${escapeHtml(challenge)}">
${hidden}
<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>`)
}
