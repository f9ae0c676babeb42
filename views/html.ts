import { createHash } from 'node:crypto'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Every value that reaches a page goes through this. */
export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:4rem 1rem;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002;width:100%;max-width:24rem}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:1rem 0 .3rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #bbb;border-radius:4px;font-size:1rem}
button{margin-top:1.5rem;width:100%;padding:.65rem;border:0;border-radius:4px;background:#2451b7;color:#fff;font-size:1rem;cursor:pointer}
ul{padding-left:1.2rem}dt{font-weight:600;margin-top:.6rem}dd{margin:0}
.actions{display:flex;gap:1rem;margin-top:1.5rem}.actions button{flex:1;margin-top:0}.deny{background:#e4e6eb;color:#222}
.error{background:#fdecea;color:#8a1c12;padding:.6rem .8rem;border-radius:4px}.note{color:#555;font-size:.9rem}
.brand{color:#2451b7;font-weight:700;margin:0 0 1rem}.links{margin-top:1.2rem;font-size:.9rem;text-align:center}
fieldset{border:1px solid #ddd;border-radius:4px;margin:1rem 0;padding:.5rem .8rem}legend{font-weight:600}
.choice{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0;font-weight:400}.choice input{width:auto;margin:.2rem 0 0}
.choice span{display:block}.choice small{color:#555}.unverified{color:#8a5a00}`

/** The stylesheet is inline and allowed by its hash: no 'unsafe-inline' in the policy. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

/**
 * The pages both servers render (the portal's login page, the auth server's
 * consent and error pages) share this layout and policy: nothing but their own
 * style, never framed, forms only to their own origin and `formOrigins`.
 */
export function pageCsp (formOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `form-action 'self' ${formOrigins.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join('; ')
}

/** `product`: the product's name (PRODUCT_NAME), shown above the page's heading and in its title. */
export function layout (title: string, body: string, product?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(product === undefined ? title : `${title} · ${product}`)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${product === undefined ? '' : `<p class="brand">${escapeHtml(product)}</p>\n`}${body}
</main></body>
</html>
`
}
