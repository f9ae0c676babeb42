// Declarations the token-exchange benchmark needs beyond bench/autocannon.d.ts
// and auth-server/oidc-provider.d.ts.

// autocannon 9 "requests" option (node_modules/autocannon/README.md): each
// request is rebuilt through `setupRequest`, so every body can differ.
declare module 'autocannon' {
  interface RequestParams {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  interface Options {
    requests?: Array<{ setupRequest?: (request: RequestParams) => RequestParams }>
  }
}

// oidc-provider's own in-memory adapter and the LRU store it sits on.
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { Adapter } from 'oidc-provider'
  export default class MemoryAdapter implements Adapter {
    constructor (model: string, store?: unknown, clockTolerance?: number)
    upsert: Adapter['upsert']
    find: Adapter['find']
    findByUid: Adapter['findByUid']
    findByUserCode: Adapter['findByUserCode']
    consume: Adapter['consume']
    destroy: Adapter['destroy']
    revokeByGrantId: Adapter['revokeByGrantId']
  }
}

declare module 'oidc-provider/lib/helpers/lru.js' {
  export default class LRU {
    constructor (options: { maxSize: number })
  }
}
