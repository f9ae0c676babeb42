export interface HandoffPerson {
  id: string
  email: string
  name: string
  tenantId: string
  tenantName: string
}

export type ConsumeResult =
  | { ok: true, person: HandoffPerson, transaction: string }
  | { ok: false, status: 400 | 401 | 403 | 502, reason: string }

export interface PortalClientOptions {
  /** The portal's API origin: PORTAL_API_URL, or BASE_URL. */
  apiUrl: string
  handoffSecret: string
  timeoutMs?: number
}

/** Exchanges a handoff code for the person through `POST /api/oauth/handoff/consume`. */
export function createPortalClient (options: PortalClientOptions) {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/api/oauth/handoff/consume`
  const timeoutMs = options.timeoutMs ?? 5000

  return {
    async consume (code: string): Promise<ConsumeResult> {
      let response: Response
      let body: any
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-oauth-handoff-secret': options.handoffSecret },
          body: JSON.stringify({ code }),
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs)
        })
        body = await response.json().catch(() => undefined)
      } catch {
        return { ok: false, status: 502, reason: 'portal-unreachable' }
      }
      if (response.status === 401) return { ok: false, status: 401, reason: 'secret-rejected' }
      if (response.status === 403) return { ok: false, status: 403, reason: String(body?.error?.code ?? body?.code ?? 'forbidden') }
      if (response.status === 400) return { ok: false, status: 400, reason: 'code-invalid' }
      const user = body?.user
      if (response.status !== 200 || typeof user?.id !== 'string' || typeof body?.oauth_transaction !== 'string') {
        return { ok: false, status: 502, reason: `portal-answered-${response.status}` }
      }
      return {
        ok: true,
        transaction: body.oauth_transaction,
        person: { id: user.id, email: String(user.email ?? ''), name: String(user.name ?? ''), tenantId: String(user.tenant_id), tenantName: String(user.tenant_name ?? '') }
      }
    }
  }
}

export type PortalClient = ReturnType<typeof createPortalClient>
