/**
 * SSE fan-out: `clients` viewers of one instance's live log, on one backend
 * follow. The server writes lines at a fixed rate for the run's duration; the
 * clients here count the lines delivered (lines/s, summed over the clients)
 * and the delivery latency of each (receipt time minus the time written in the
 * line, both on this machine's clock). A line a client did not get counts as an
 * error. Target: p99 under 250 ms.
 */
import { request } from 'node:http'
import type { RunningServer } from './child-process.ts'
import type { Measurement } from './report.ts'

export const LOG_FANOUT_SCENARIO = 'SSE log fan-out (100 clients, 1 instance)'

interface FanoutSettings {
  clients: number
  durationSeconds: number
  linesPerSecond: number
}

interface Viewer { received: number, latencies: number[], close: () => void }

function connect (url: string): Promise<Viewer> {
  return new Promise((resolve, reject) => {
    const viewer: Viewer = { received: 0, latencies: [], close: () => {} }
    const req = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`the stream answered ${res.statusCode}`)); return }
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        const now = Date.now()
        buffer += chunk
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const data = /^data: (.*)$/m.exec(block)?.[1]
          const written = data === undefined ? undefined : /^bench \d+ (\d+)$/.exec((JSON.parse(data) as { line: string }).line)?.[1]
          if (written === undefined) continue
          viewer.received++
          viewer.latencies.push(now - Number(written))
        }
      })
      res.on('error', () => {})
      viewer.close = () => { req.destroy() }
      resolve(viewer)
    })
    req.on('error', reject)
    req.end()
  })
}

const percentile = (sorted: number[], p: number): number => sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

export async function measureLogFanout (server: RunningServer, settings: FanoutSettings, log: (line: string) => void): Promise<Measurement> {
  const viewers: Viewer[] = []
  for (let i = 0; i < settings.clients; i++) viewers.push(await connect(await server.call<string>('streamUrl', null)))
  const stats = await server.call<{ channels: number, viewers: number, follows: number }>('stats', null)
  log(`${LOG_FANOUT_SCENARIO}: ${stats.viewers} viewers on ${stats.channels} channel(s), ${stats.follows} backend follow(s); ${settings.linesPerSecond} lines/s for ${settings.durationSeconds} s`)
  const started = Date.now()
  const written = await server.call<number>('emit', { rate: settings.linesPerSecond, seconds: settings.durationSeconds })
  await new Promise((resolve) => setTimeout(resolve, 1000)) // the last lines on their way
  const seconds = (Date.now() - started - 1000) / 1000
  for (const viewer of viewers) viewer.close()
  const delivered = viewers.reduce((sum, v) => sum + v.received, 0)
  const latencies = viewers.flatMap((v) => v.latencies).sort((a, b) => a - b)
  const missing = written * settings.clients - delivered
  return {
    server: 'ours',
    name: LOG_FANOUT_SCENARIO,
    method: 'GET',
    path: '/api/instances/:id/logs/stream',
    requestsPerSecond: delivered / seconds,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    totalRequests: delivered,
    errors: Math.max(0, missing),
    timeouts: 0,
    non2xx: 0,
    statusCodes: { 200: settings.clients },
    ratio: 1,
    cpuMsPer1000: 0,
    cpuRatio: 1
  }
}
