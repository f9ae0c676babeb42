/** The memory tests of archive downloads: a sparse archive, and a download that samples RSS as it goes. */
import { closeSync, ftruncateSync, openSync } from 'node:fs'
import { get } from 'node:http'

/** A file of `bytes` that reads as zeros and takes no disk. */
export function sparseFile (path: string, bytes: number, mode = 0o644): void {
  const fd = openSync(path, 'w', mode)
  ftruncateSync(fd, bytes)
  closeSync(fd)
}

export interface MeasuredDownload {
  received: number
  /** RSS before, and its peak while the body streamed, in bytes. */
  before: number
  peak: number
  seconds: number
}

/**
 * GETs `url` with a client in this process that counts and drops what arrives, sampling the
 * process's RSS every 20 ms and on every chunk. Anything but 200 rejects.
 */
export async function measuredDownload (url: string, headers: Record<string, string>): Promise<MeasuredDownload> {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
  const started = Date.now()
  try {
    const received = await new Promise<number>((resolve, reject) => {
      get(url, { headers }, (res) => {
        if (res.statusCode !== 200) { reject(new Error(`download answered ${res.statusCode}`)); return }
        let bytes = 0
        res.on('data', (chunk: Buffer) => { bytes += chunk.length; peak = Math.max(peak, process.memoryUsage().rss) })
        res.on('end', () => resolve(bytes))
        res.on('error', reject)
      }).on('error', reject)
    })
    return { received, before, peak, seconds: (Date.now() - started) / 1000 }
  } finally {
    clearInterval(sampler)
  }
}

export const mib = (bytes: number): number => Math.round(bytes / 2 ** 20)
