import { AGENT_LEVELS, LEVEL_WORDS, levelAllows, type AgentLevel } from '../../lib/agent-access.ts'
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
  /** The highest level the person's role lets them give. */
  cap: AgentLevel
  /** The company's instances, for "only these instances". */
  instances: Array<{ id: number, name: string, subdomain: string }>
  /** Shown above the form when a previous answer could not be taken. */
  problem?: string | undefined
}

function levelChoices (cap: AgentLevel): string {
  return AGENT_LEVELS.map((level) => {
    const allowed = levelAllows(cap, level)
    const words = LEVEL_WORDS[level]
    const why = allowed ? '' : ' <em>(your role does not allow this)</em>'
    return `<label class="choice"><input type="radio" name="level" value="${level}"${level === 'read' ? ' checked' : ''}${allowed ? '' : ' disabled'}>` +
      `<span>${escapeHtml(words.label)}${why}<small> It can ${escapeHtml(words.allows)}.</small></span></label>`
  }).join('\n')
}

function instanceChoices (instances: ConsentPageInput['instances']): string {
  if (instances.length === 0) return '<p class="note">Your company has no instances yet; the agent will see the ones created later.</p>'
  const boxes = instances.map((instance) => `<label class="choice"><input type="checkbox" name="instance" value="${instance.id}">` +
    `<span>${escapeHtml(instance.name)} <small>(${escapeHtml(instance.subdomain)})</small></span></label>`).join('\n')
  return `<label class="choice"><input type="radio" name="instances" value="all" checked><span>All instances, including ones created later</span></label>
<label class="choice"><input type="radio" name="instances" value="some"><span>Only these instances:</span></label>
${boxes}`
}

/** The consent page: who asks, for whom, what the agent may do (level and instances), and the Allow / Deny buttons. */
export function renderConsentPage (input: ConsentPageInput): string {
  const client = escapeHtml(input.clientName)
  const { person } = input
  const provenance = input.clientHost === undefined
    ? '<dt>Verified</dt><dd class="unverified" data-client-verification="unverified">No: unverified. The application chose this name itself when it registered; anyone can register any name.</dd>\n'
    : `<dt>Published by</dt><dd data-client-verification="metadata">${escapeHtml(input.clientHost)} (the application's own description, read from its address on that host)</dd>\n`
  const problem = input.problem === undefined ? '' : `<p class="error" role="alert">${escapeHtml(input.problem)}</p>\n`
  return layout(`Allow ${input.clientName}?`, `<h1>Allow ${client} to access your account?</h1>
<dl>
<dt>Application</dt><dd>${client}</dd>
${provenance}<dt>It will send you back to</dt><dd>${escapeHtml(input.redirectHost)}</dd>
<dt>Signed in as</dt><dd>${escapeHtml(person.name)} (${escapeHtml(person.email)})</dd>
<dt>Company</dt><dd>${escapeHtml(person.tenantName)}</dd>
</dl>
${problem}<form method="post" action="/oauth/consent">
<input type="hidden" name="oauth_transaction" value="${escapeHtml(input.transaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<fieldset><legend>What may ${client} do for you?</legend>
${levelChoices(input.cap)}
</fieldset>
<fieldset><legend>On which instances?</legend>
${instanceChoices(input.instances)}
</fieldset>
<p class="note">It acts through the portal's MCP interface, never beyond what you may do yourself. Every call it makes is recorded;
you can change its level or disconnect it at any time from your account's connected agents${input.product === undefined ? '' : ` in ${escapeHtml(input.product)}`}.</p>
<div class="actions">
<button type="submit" name="decision" value="deny" class="deny">Deny</button>
<button type="submit" name="decision" value="allow" class="allow">Allow</button>
</div>
</form>`, input.product)
}
