/**
 * Odoo's external JSON-RPC API: `POST <endpoint>/jsonrpc` with
 * `{jsonrpc: '2.0', method: 'call', params: {service, method, args}, id}`; the answer carries
 * `result`, or `error: {code: 200, message: 'Odoo Server Error', data: {name, message, ...}}`.
 */

/** The ERP answered with a fault: `name` is Odoo's exception class, `message` its text. */
export class ErpFault extends Error {
  override name = 'ErpFault'
  readonly faultName: string
  constructor (faultName: string, message: string) {
    super(message)
    this.faultName = faultName
  }

  get accessDenied (): boolean { return this.faultName === 'odoo.exceptions.AccessDenied' }
}

/** The ERP could not be reached or did not answer in time, or answered something that is not JSON-RPC. */
export class ErpUnreachable extends Error {
  override name = 'ErpUnreachable'
}

/**
 * The ERP answered an HTML 500 page instead of JSON-RPC: what Odoo answers to every call, even
 * `common.version`, while its configured database is not initialised (no `-i base` yet, or a
 * database emptied behind its back). Still "no answer" to a caller that only retries.
 */
export class ErpDatabaseNotInitialised extends ErpUnreachable {
  override name = 'ErpDatabaseNotInitialised'
}

/** How a request reaches the ERP; `fetch` unless the backend's path needs its own credentials (a Kubernetes API proxy). */
export type RpcFetch = (url: URL, init: { method: 'POST', headers: Record<string, string>, body: string, signal: AbortSignal }) => Promise<Response>

export interface RpcTarget {
  /** `http://<address>:8069` on the backend's network, or a proxy URL ending where the ERP's paths begin. */
  endpoint: string
  timeoutMs: number
  fetch?: RpcFetch
}

let nextId = 1

export async function callOdoo (target: RpcTarget, service: 'common' | 'object' | 'db', method: string, args: unknown[]): Promise<unknown> {
  const id = nextId++
  let response: Response
  const signal = AbortSignal.timeout(target.timeoutMs)
  // Relative to the endpoint, so that a proxy URL's path is kept.
  const url = new URL('jsonrpc', target.endpoint.endsWith('/') ? target.endpoint : `${target.endpoint}/`)
  try {
    response = await (target.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service, method, args }, id }),
      signal
    })
  } catch (error) {
    const timedOut = signal.aborted
    throw new ErpUnreachable(timedOut ? `The ERP did not answer within ${target.timeoutMs} ms` : `The ERP cannot be reached: ${(error as Error).message}`, { cause: error })
  }
  let body: { result?: unknown, error?: { message?: string, data?: { name?: string, message?: string } } }
  if (response.status === 500 && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
    await response.body?.cancel()
    throw new ErpDatabaseNotInitialised('The ERP answered HTTP 500 with an HTML page, as it does while its database is not initialised')
  }
  try {
    body = await response.json() as typeof body
  } catch (error) {
    throw new ErpUnreachable(`The ERP answered HTTP ${response.status} without JSON-RPC`, { cause: error })
  }
  if (body.error !== undefined) {
    throw new ErpFault(body.error.data?.name ?? 'unknown', body.error.data?.message ?? body.error.message ?? 'Odoo Server Error')
  }
  if (!('result' in body)) throw new ErpUnreachable(`The ERP answered HTTP ${response.status} without a JSON-RPC result`)
  return body.result
}
