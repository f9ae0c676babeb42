/**
 * oidc-provider ships no type declarations and @types/oidc-provider is not
 * installed: the small surface this folder uses, typed loosely on purpose.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export type AnyObject = Record<string, any>
  export type KoaContextWithOIDC = AnyObject & { oidc: AnyObject }
  export type KoaMiddleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void

  export interface AdapterPayload extends AnyObject {
    grantId?: string
    uid?: string
    userCode?: string
    consumed?: number
  }

  export interface Adapter {
    upsert: (id: string, payload: AdapterPayload, expiresIn: number) => Promise<void>
    find: (id: string) => Promise<AdapterPayload | undefined>
    findByUid: (uid: string) => Promise<AdapterPayload | undefined>
    findByUserCode: (userCode: string) => Promise<AdapterPayload | undefined>
    consume: (id: string) => Promise<void>
    destroy: (id: string) => Promise<void>
    revokeByGrantId: (grantId: string) => Promise<void>
  }

  export class OIDCProviderError extends Error {
    status: number
    statusCode: number
    error: string
    error_description?: string
  }

  export const errors: {
    OIDCProviderError: typeof OIDCProviderError
    InvalidGrant: new (description?: string | AnyObject) => OIDCProviderError
    InvalidClientMetadata: new (description: string) => OIDCProviderError
    InvalidRedirectUri: new () => OIDCProviderError
    InvalidRequest: new (description?: string) => OIDCProviderError
    InvalidTarget: new (description?: string) => OIDCProviderError
    AccessDenied: new (description?: string) => OIDCProviderError
    InvalidClient: new (description?: string) => OIDCProviderError
    InvalidScope: new (description: string, scope?: string) => OIDCProviderError
    UnauthorizedClient: new (description?: string) => OIDCProviderError
  }

  export default class Provider {
    constructor (issuer: string, configuration?: AnyObject)
    proxy: boolean
    issuer: string
    app: AnyObject
    use (middleware: KoaMiddleware): void
    callback (): (req: IncomingMessage, res: ServerResponse) => void
    registerGrantType (name: string, handler: (ctx: KoaContextWithOIDC) => Promise<void>, params?: Set<string> | string[], dupes?: Set<string> | string[]): void
    on (event: string, listener: (...args: any[]) => void): this
    interactionDetails (req: IncomingMessage, res: ServerResponse): Promise<AnyObject>
    interactionResult (req: IncomingMessage, res: ServerResponse, result: AnyObject, options?: AnyObject): Promise<string>
    interactionFinished (req: IncomingMessage, res: ServerResponse, result: AnyObject, options?: AnyObject): Promise<void>
    Grant: any
    AuthorizationCode: any
    AccessToken: any
    RefreshToken: any
    Client: any
    Interaction: any
    Session: any
  }
}

// Deep imports used to wrap the built-in refresh_token grant (refresh-grace.ts).
declare module 'oidc-provider/lib/actions/grants/refresh_token.js'
declare module 'oidc-provider/lib/actions/grants/authorization_code.js'
declare module 'oidc-provider/lib/helpers/grants.js'
