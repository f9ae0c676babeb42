import { Agent, createServer } from 'node:http'
import httpProxy from 'http-proxy'

export interface ReadinessProxy {
  origin: string
  /** Replicas (origins) the proxy sends to now. */
  inRotation: () => string[]
  /** Resolves once the replica is in (true) or out of (false) the rotation. */
  until: (target: string, inRotation: boolean, timeoutMs?: number) => Promise<void>
  /** Requests answered by each replica so far. */
  served: Map<string, number>
  close: () => Promise<void>
}

/**
 * A local load balancer as a Kubernetes Service behaves: round robin over the replicas whose
 * /health/ready answered 200 at the last check (every `intervalMs`). The proxying is http-proxy's,
 * over a keep-alive agent (the setting where a replica closing a socket the proxy reuses would show).
 */
export async function startReadinessProxy (targets: string[], options: { port?: number, intervalMs?: number } = {}): Promise<ReadinessProxy> {
  const intervalMs = options.intervalMs ?? 200
  const ready = new Set<string>()
  const served = new Map<string, number>(targets.map((target) => [target, 0]))
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const proxy = httpProxy.createProxyServer({ agent })
  // `Connection` is hop-by-hop: a draining replica's `close` is for the proxy's socket, not the client's.
  proxy.on('proxyRes', (proxyResponse) => { delete proxyResponse.headers.connection })
  proxy.on('error', (_error, _request, response) => { if ('writeHead' in response && !response.headersSent) response.writeHead(502).end() })

  let stopped = false
  const check = async (target: string) => {
    const status = await fetch(`${target}/health/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status, () => 0)
    if (status === 200) ready.add(target)
    else ready.delete(target)
  }
  await Promise.all(targets.map(check))
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
      await Promise.all(targets.map(check))
    }
  })()

  let turn = 0
  const front = createServer((request, response) => {
    const rotation = targets.filter((target) => ready.has(target))
    const target = rotation[turn++ % Math.max(rotation.length, 1)]
    if (target === undefined) return response.writeHead(503).end()
    served.set(target, (served.get(target) ?? 0) + 1)
    proxy.web(request, response, { target })
  })
  await new Promise<void>((resolve) => front.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = front.address() as { port: number }

  return {
    origin: `http://127.0.0.1:${port}`,
    inRotation: () => targets.filter((target) => ready.has(target)),
    served,
    async until (target, inRotation, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (ready.has(target) !== inRotation) {
        if (Date.now() > deadline) throw new Error(`${target} did not ${inRotation ? 'join' : 'leave'} the rotation`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    async close () {
      stopped = true
      await loop
      front.closeAllConnections()
      await new Promise((resolve) => front.close(resolve))
      agent.destroy()
    }
  }
}
