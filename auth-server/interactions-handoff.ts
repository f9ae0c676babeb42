import type { KoaContextWithOIDC } from 'oidc-provider'
import type Provider from 'oidc-provider'
import { isBoundTransaction, redirect303, sendError, sendExpired } from './interactions-http.ts'
import type { PortalClient } from './interactions-portal.ts'

const TITLE = 'Cannot finish signing in'

const REFUSALS: Record<number, string> = {
  400: 'This sign-in link was already used or has expired. Start again from your agent.',
  401: 'The sign-in service is misconfigured (the portal refused this server). Tell your administrator.',
  403: 'Your account or your company cannot sign in at the moment.',
  502: 'The portal did not answer. Wait a moment, then start again from your agent.'
}

export interface HandoffDeps {
  provider: Provider
  portal: PortalClient
  log: (message: string) => void
}

/**
 * `GET /oauth/handoff?oauth_transaction&handoff_code`: the portal sends the
 * browser here after the person signed in. The code is exchanged for the
 * person, then the authorization resumes at `returnTo`.
 */
export function createHandoffRoute ({ provider, portal, log }: HandoffDeps) {
  return async (ctx: KoaContextWithOIDC): Promise<void> => {
    const uid = ctx.query.oauth_transaction
    const code = ctx.query.handoff_code
    if (typeof uid !== 'string' || uid === '' || typeof code !== 'string' || code === '') {
      return sendError(ctx, 400, TITLE, 'This sign-in link is incomplete. Start again from your agent.')
    }
    if (!isBoundTransaction(ctx, uid)) {
      return sendError(ctx, 400, TITLE, 'This sign-in was started in another browser, or has expired. Start again from your agent, in this browser.')
    }
    const consumed = await portal.consume(code)
    if (!consumed.ok) {
      if (consumed.status === 401 || consumed.status === 502) log(`oauth handoff failed: ${consumed.reason}`)
      return sendError(ctx, consumed.status, TITLE, REFUSALS[consumed.status] ?? REFUSALS[400] as string)
    }
    if (consumed.transaction !== uid) {
      return sendError(ctx, 400, TITLE, 'This sign-in link does not belong to this request. Start again from your agent.')
    }
    const interaction = await provider.Interaction.find(uid)
    if (interaction === undefined || interaction.prompt?.name !== 'login') return sendExpired(ctx)

    const { person } = consumed
    interaction.result = {
      login: { accountId: person.id },
      // Read back as `lastSubmission` by the consent step that follows.
      person: { id: person.id, name: person.name, email: person.email, tenantId: person.tenantId, tenantName: person.tenantName }
    }
    const ttl = interaction.exp - Math.floor(Date.now() / 1000)
    if (ttl <= 0) return sendExpired(ctx)
    await interaction.save(ttl)
    redirect303(ctx, interaction.returnTo as string)
  }
}
