import { escapeHtml, layout } from './html.ts'

export interface ConsentPageInput {
  transaction: string
  csrf: string
  clientName: string
  /** For a client identified by the URL of its metadata document: that URL's host, which vouches for the name. */
  clientHost?: string | undefined
  redirectHost: string
  person: { name: string, email: string, tenantName: string }
  /** PRODUCT_NAME, above the heading. */
  product?: string | undefined
}

/** The consent page: who asks, for whom, what `mcp` allows, and the Allow / Deny buttons. */
export function renderConsentPage (input: ConsentPageInput): string {
  const client = escapeHtml(input.clientName)
  const { person } = input
  const publishedBy = input.clientHost === undefined
    ? ''
    : `<dt>Published by</dt><dd>${escapeHtml(input.clientHost)} (the application's own description, read from its address)</dd>\n`
  return layout(`Allow ${input.clientName}?`, `<h1>Allow ${client} to access your account?</h1>
<dl>
<dt>Application</dt><dd>${client}</dd>
${publishedBy}<dt>It will send you back to</dt><dd>${escapeHtml(input.redirectHost)}</dd>
<dt>Signed in as</dt><dd>${escapeHtml(person.name)} (${escapeHtml(person.email)})</dd>
<dt>Company</dt><dd>${escapeHtml(person.tenantName)}</dd>
</dl>
<p>If you allow it, ${client} can act on your behalf in the portal through its MCP interface, with your permissions:</p>
<ul>
<li>list, create, start, stop and manage your ERP instances;</li>
<li>read and answer support tickets;</li>
<li>read your company's activity, users and billing information your role can see.</li>
</ul>
<p class="note">You can disconnect it at any time from your account's connected agents${input.product === undefined ? '' : ` in ${escapeHtml(input.product)}`}.</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="oauth_transaction" value="${escapeHtml(input.transaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<div class="actions">
<button type="submit" name="decision" value="deny" class="deny">Deny</button>
<button type="submit" name="decision" value="allow" class="allow">Allow</button>
</div>
</form>`, input.product)
}
