import { createHash } from 'node:crypto'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Every value that reaches a page goes through this. */
export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:4rem 1rem;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002;width:100%;max-width:26rem}
h1{font-size:1.4rem;margin-top:0}ul{padding-left:1.2rem}dt{font-weight:600;margin-top:.6rem}dd{margin:0}
.actions{display:flex;gap:1rem;margin-top:1.5rem}button{flex:1;padding:.65rem;border:0;border-radius:4px;font-size:1rem;cursor:pointer}
.allow{background:#2451b7;color:#fff}.deny{background:#e4e6eb;color:#222}
.error{background:#fdecea;color:#8a1c12;padding:.6rem .8rem;border-radius:4px}.note{color:#555;font-size:.9rem}`

/** The stylesheet is inline and allowed by its hash: no 'unsafe-inline' in the policy. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

/** Nothing but the page's own style, forms only to this origin, never framed. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join('; ')

export function layout (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`
}

/** A dead end the person cannot fix from here: what happened and what to do next, no details. */
export function renderErrorPage (title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="note">You can close this window.</p>`)
}
