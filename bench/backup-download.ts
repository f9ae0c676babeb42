/**
 * Backup download throughput: the archive streamed by the real download route over loopback
 * HTTP, against a plain read of the same file from this process, in the same run, alternately
 * (read, download, read, download, …), `rounds` times; MB/s is the mean of each. The ratio is the
 * download's over the plain read's (target: at least 0.5). Reported, not asserted.
 */
import { createReadStream } from 'node:fs'
import { get } from 'node:http'
import type { RunningServer } from './child-process.ts'
import type { Measurement } from './report.ts'

export const BACKUP_DOWNLOAD_SCENARIO = 'backup download (MB/s vs a plain file read)'

async function plainRead (file: string): Promise<{ bytes: number, ms: number }> {
  const started = performance.now()
  let bytes = 0
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) bytes += (chunk as Buffer).length
  return { bytes, ms: performance.now() - started }
}

function download (url: string): Promise<{ bytes: number, ms: number, status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    get(url, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => { bytes += chunk.length })
      res.on('end', () => resolve({ bytes, ms: performance.now() - started, status: res.statusCode ?? 0 }))
      res.on('error', reject)
    }).on('error', reject)
  })
}

const mbPerSecond = (runs: Array<{ bytes: number, ms: number }>): number => runs.reduce((s, r) => s + r.bytes / 2 ** 20 / (r.ms / 1000), 0) / runs.length

export async function measureBackupDownload (server: RunningServer, rounds: number, log: (line: string) => void): Promise<Measurement[]> {
  const { file, bytes } = await server.call<{ file: string, bytes: number }>('archive', null)
  log(`${BACKUP_DOWNLOAD_SCENARIO}: ${Math.round(bytes / 2 ** 20)} MB archive, ${rounds} rounds`)
  const reads: Array<{ bytes: number, ms: number }> = []
  const downloads: Array<{ bytes: number, ms: number, status: number }> = []
  await plainRead(file) // warm the page cache for both
  for (let i = 0; i < rounds; i++) {
    reads.push(await plainRead(file))
    downloads.push(await download(await server.call<string>('downloadUrl', null)))
  }
  const read = mbPerSecond(reads)
  const served = mbPerSecond(downloads)
  const bad = downloads.filter((d) => d.status !== 200 || d.bytes !== bytes).length
  log(`${BACKUP_DOWNLOAD_SCENARIO}: plain read ${read.toFixed(0)} MB/s, download ${served.toFixed(0)} MB/s, ratio ${(served / read).toFixed(2)} (target >= 0.5)`)
  const row = (server: 'baseline' | 'ours', name: string, path: string, value: number, ms: number[], ratio: number): Measurement => ({
    server, name, method: 'GET', path, requestsPerSecond: value, latencyP50Ms: ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? 0, latencyP99Ms: Math.max(...ms),
    totalRequests: ms.length, errors: server === 'ours' ? bad : 0, timeouts: 0, non2xx: server === 'ours' ? downloads.filter((d) => d.status !== 200).length : 0,
    statusCodes: server === 'ours' ? { 200: downloads.filter((d) => d.status === 200).length } : {}, ratio, cpuMsPer1000: 0, cpuRatio: 1
  })
  return [
    row('baseline', 'plain file read (MB/s)', 'fs.createReadStream', read, reads.map((r) => r.ms), 1),
    { ...row('ours', `${BACKUP_DOWNLOAD_SCENARIO}`, '/api/instances/:id/backups/:backup_id/download-by-token', served, downloads.map((d) => d.ms), served / read), comparedWith: 'plain file read (MB/s)' }
  ]
}
