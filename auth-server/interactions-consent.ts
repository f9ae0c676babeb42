import type pg from 'pg'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type Provider from 'oidc-provider'
import type { ConsentCsrf } from './interactions-csrf.ts'
import { isBoundTransaction, readForm, redirect303, sendError, sendExpired, sendPage } from './interactions-http.ts'
import { lowerLevel, levelCap, isAgentLevel, type AgentAccess } from '../lib/agent-access.ts'
import { findPerson, listConsentInstances, recordConnected, saveGrantAccess, type ConsentInstance, type ConsentPerson } from './interactions-records.ts'
import { renderConsentPage } from './views/consent.ts'
import { consentCsp } from './views/html.ts'

export interface ConsentDeps {
  provider: Provider
  pool: pg.Pool
  csrf: ConsentCsrf
  mcpResource: string
  /** PRODUCT_NAME, above the page's heading. */
  product?: string | undefined
  log: (message: string) => void
}

interface PendingConsent {
  interaction: any
  client: any
  person: ConsentPerson
  instances: ConsentInstance[]
}

const TITLE = 'Cannot continue'
const epoch = () => Math.floor(Date.now() / 1000)

/** `GET` and `POST /oauth/consent?oauth_transaction=<uid>`: the person allows or denies the agent. */
export function createConsentRoutes ({ provider, pool, csrf, mcpResource, product, log }: ConsentDeps) {
  /** The consent transaction `uid` of this browser, with its client and person; answers the page itself when there is none. */
  async function load (ctx: KoaContextWithOIDC, uid: unknown): Promise<PendingConsent | undefined> {
    if (typeof uid !== 'string' || uid === '') return void sendExpired(ctx)
    if (!isBoundTransaction(ctx, uid)) {
      return void sendError(ctx, 400, TITLE, 'This request was started in another browser, or has expired. Start again from your agent, in this browser.')
    }
    const interaction = await provider.Interaction.find(uid)
    const accountId = interaction?.session?.accountId
    if (interaction === undefined || interaction.prompt?.name !== 'consent' || typeof accountId !== 'string') return void sendExpired(ctx)
    const client = await provider.Client.find(interaction.params?.client_id)
    // Read now, not from the handoff: the role caps the agent's level, so it must be current.
    const person = await findPerson(pool, accountId)
    if (client === undefined || person === undefined) return void sendExpired(ctx)
    return { interaction, client, person, instances: await listConsentInstances(pool, person.tenantId) }
  }

  function render (ctx: KoaContextWithOIDC, status: number, { interaction, client, person, instances }: PendingConsent, problem?: string): void {
    sendPage(ctx, status, renderConsentPage({
      transaction: interaction.uid,
      csrf: csrf.token(interaction.uid),
      clientName: clientName(client),
      clientHost: metadataDocumentHost(client),
      redirectHost: redirectHost(interaction.params?.redirect_uri),
      person: { name: person.name, email: person.email, tenantName: person.tenantName },
      product,
      cap: levelCap(person.role),
      instances,
      problem
    }))
    ctx.set('Content-Security-Policy', consentCsp(interaction.params?.redirect_uri))
  }

  async function show (ctx: KoaContextWithOIDC): Promise<void> {
    const pending = await load(ctx, ctx.query.oauth_transaction)
    if (pending !== undefined) render(ctx, 200, pending)
  }

  async function decide (ctx: KoaContextWithOIDC): Promise<void> {
    const form = await readForm(ctx)
    if (form === undefined) return sendError(ctx, 400, TITLE, 'This form could not be read. Start again from your agent.')
    const uid = form.get('oauth_transaction') ?? ''
    if (!csrf.verify(uid, form.get('csrf'))) {
      return sendError(ctx, 403, TITLE, 'This form has expired or was not opened on this site. Start again from your agent.')
    }
    const decision = form.get('decision')
    if (decision !== 'allow' && decision !== 'deny') return sendError(ctx, 400, TITLE, 'Choose Allow or Deny.')
    const pending = await load(ctx, uid)
    if (pending === undefined) return
    const { interaction, client, person } = pending

    if (decision === 'deny') {
      interaction.result = { error: 'access_denied', error_description: 'The person declined' }
    } else {
      const access = chosenAccess(form, pending)
      if (typeof access === 'string') return render(ctx, 400, pending, access)
      const grantId = await saveGrant(interaction, person.id, client.clientId)
      await saveGrantAccess(pool, person, grantId, access)
      interaction.result = { consent: { grantId } }
      if (interaction.grantId === undefined) {
        // The grant stands even if the feed entry cannot be written.
        await recordConnected(pool, person, clientName(client), grantId)
          .catch((error: Error) => log(`oauth consent: activity not recorded: ${error.message}`))
      }
    }
    const ttl = interaction.exp - epoch()
    if (ttl <= 0) return sendExpired(ctx)
    await interaction.save(ttl)
    redirect303(ctx, interaction.returnTo as string)
  }

  /** A new grant, or the session's existing one for this client, with whatever the request is missing plus `mcp` on the MCP resource. */
  async function saveGrant (interaction: any, accountId: string, clientId: string): Promise<string> {
    const existing = interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId)
    const grant = existing ?? new provider.Grant({ accountId, clientId })
    const details = interaction.prompt?.details ?? {}
    if (Array.isArray(details.missingOIDCScope)) grant.addOIDCScope(details.missingOIDCScope.join(' '))
    if (Array.isArray(details.missingOIDCClaims)) grant.addOIDCClaims(details.missingOIDCClaims)
    grant.addResourceScope(mcpResource, 'mcp')
    return await grant.save() as string
  }

  return { show, decide }
}

/**
 * The level and instances chosen on the page, or what is wrong with them. No
 * level means read only; a level above the role's is lowered to it (the page
 * offers no more); "only these instances" needs one of the company's.
 */
function chosenAccess (form: URLSearchParams, { person, instances }: PendingConsent): AgentAccess | string {
  const level = form.get('level') ?? 'read'
  if (!isAgentLevel(level)) return 'Choose what the agent may do: Read only, Operate or Administer.'
  if (form.get('instances') !== 'some') return { level: lowerLevel(level, levelCap(person.role)), instanceIds: null }
  const known = new Set(instances.map((instance) => instance.id))
  const chosen = [...new Set(form.getAll('instance').map(Number))].sort((a, b) => a - b)
  if (chosen.length === 0) return 'Choose at least one instance, or All instances.'
  if (!chosen.every((id) => known.has(id))) return 'One of the chosen instances no longer exists. Choose again.'
  return { level: lowerLevel(level, levelCap(person.role)), instanceIds: chosen }
}

function clientName (client: any): string {
  return typeof client.clientName === 'string' && client.clientName !== '' ? client.clientName : client.clientId
}

/** The host of a client identified by its metadata document URL (client-id-metadata.ts); undefined for registered clients. */
function metadataDocumentHost (client: any): string | undefined {
  return client.clientIdMetadataDocument === true ? URL.parse(client.clientId)?.host : undefined
}

function redirectHost (redirectUri: unknown): string {
  try {
    return new URL(String(redirectUri)).host
  } catch {
    return 'an unknown address'
  }
}
