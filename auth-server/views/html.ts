import { escapeHtml, layout, pageCsp } from '../../views/html.ts'

export { escapeHtml, layout }

/** Consent and error pages post only to the auth server itself. */
export const PAGE_CSP = pageCsp()

/** A dead end the person cannot fix from here: what happened and what to do next, no details. */
export function renderErrorPage (title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="note">You can close this window.</p>`)
}
