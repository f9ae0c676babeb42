import { escapeHtml, layout, pageCsp } from '../../views/html.ts'

export { escapeHtml, layout }

/** Consent and error pages post only to the auth server itself. */
export const PAGE_CSP = pageCsp()

/**
 * The consent form's POST ends, after redirects, at the agent's redirect URI,
 * and browsers apply form-action to every redirect of a form submission
 * (Chromium blocks the last hop otherwise): that origin is allowed too.
 */
export function consentCsp (redirectUri: unknown): string {
  try {
    return typeof redirectUri === 'string' ? pageCsp([new URL(redirectUri).origin]) : PAGE_CSP
  } catch {
    return PAGE_CSP
  }
}

/**
 * A dead end the person cannot fix from here: what happened and what to do next, no details.
 * `code` is the OAuth error code (`invalid_client`…), shown for people and agents to search for.
 */
export function renderErrorPage (title: string, message: string, code?: string): string {
  const codeLine = code === undefined ? '' : `\n<p class="note">Error code: <code data-error-code>${escapeHtml(code)}</code></p>`
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>${codeLine}
<p class="note">You can close this window.</p>`)
}
