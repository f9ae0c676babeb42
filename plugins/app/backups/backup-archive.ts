/**
 * The archive format: one uncompressed tar holding, in this order,
 * - `manifest.json`: instance, tenant, ERP version, database server major
 *   version, and per part its size and SHA-256;
 * - `database.dump`: `pg_dump --format=custom` of the instance's database;
 * - `filestore.tar`: the instance's data volume (entries under `data/`).
 * Reading checks every part against the manifest while it unpacks.
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { extract, pack } from 'tar-stream'
import { BackupCorrupt } from './backups.errors.ts'

export const PARTS = { database: 'database.dump', filestore: 'filestore.tar' } as const
const MANIFEST = 'manifest.json'
export const ARCHIVE_FORMAT = 1

export interface PartInfo { name: string, bytes: number, sha256: string }

export interface BackupManifest {
  format: number
  backup_id: number
  created_at: string
  instance: { id: number, name: string, subdomain: string }
  tenant: { id: string, subdomain: string }
  erp_version: string
  pg_major: number
  parts: PartInfo[]
}

/** A pass-through that counts and hashes what flows through it. */
function digesting (): { stream: Transform, result: () => { bytes: number, sha256: string } } {
  const hash = createHash('sha256')
  let bytes = 0
  const stream = new Transform({
    transform (chunk: Buffer, _encoding, callback) {
      hash.update(chunk)
      bytes += chunk.length
      callback(null, chunk)
    }
  })
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex') }) }
}

export async function hashFile (file: string): Promise<{ bytes: number, sha256: string }> {
  const digest = digesting()
  // oxlint-disable-next-line require-yield -- the last stage only drains the stream (the digest reads it on the way)
  await pipeline(createReadStream(file), digest.stream, async function * (source) { for await (const _ of source); })
  return digest.result()
}

/** Describes the part files of `dir` for the manifest. */
export async function describeParts (dir: string): Promise<PartInfo[]> {
  const parts: PartInfo[] = []
  for (const name of [PARTS.database, PARTS.filestore]) parts.push({ name, ...await hashFile(join(dir, name)) })
  return parts
}

/** Writes the archive of `manifest` and the part files in `dir` to `file`; answers its size and SHA-256. */
export async function writeArchive (file: string, manifest: BackupManifest, dir: string): Promise<{ bytes: number, sha256: string }> {
  const tar = pack()
  const digest = digesting()
  const written = pipeline(tar as unknown as NodeJS.ReadableStream, digest.stream, createWriteStream(file))
  const fill = (async () => {
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
    await new Promise<void>((resolve, reject) => tar.entry({ name: MANIFEST, size: text.length, mode: 0o644 }, text, (error) => error == null ? resolve() : reject(error)))
    for (const part of manifest.parts) {
      const { size } = await stat(join(dir, part.name))
      await pipeline(createReadStream(join(dir, part.name)), tar.entry({ name: part.name, size, mode: 0o600 }) as unknown as NodeJS.WritableStream)
    }
    tar.finalize()
  })()
  await Promise.all([fill, written])
  return digest.result()
}

/**
 * Unpacks the archive `file` into `dir`, checking that it holds the manifest
 * and exactly its parts with their sizes and SHA-256. Throws BackupCorrupt otherwise.
 */
export async function readArchive (file: string, dir: string): Promise<BackupManifest> {
  const entries = extract()
  const done = pipeline(createReadStream(file), entries as unknown as NodeJS.WritableStream)
  done.catch(() => {}) // awaited below; a damaged archive may also end the loop first
  let manifest: BackupManifest | undefined
  const seen = new Map<string, { bytes: number, sha256: string }>()
  try {
    for await (const entry of entries) {
      const name = entry.header.name
      if (name === MANIFEST && manifest === undefined) {
        const chunks: Buffer[] = []
        for await (const chunk of entry) chunks.push(chunk as Buffer)
        manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BackupManifest
      } else if (manifest !== undefined && manifest.parts.some((part) => part.name === name) && !seen.has(name)) {
        const digest = digesting()
        await pipeline(entry as unknown as NodeJS.ReadableStream, digest.stream, createWriteStream(join(dir, name)))
        seen.set(name, digest.result())
      } else {
        throw BackupCorrupt(`The archive holds an unexpected entry ${JSON.stringify(name)}`)
      }
    }
    await done
  } catch (error) {
    entries.destroy()
    if ((error as { code?: string }).code === BackupCorrupt.code) throw error
    throw BackupCorrupt(`The archive cannot be read: ${(error as Error).message}`)
  }
  if (manifest === undefined) throw BackupCorrupt('The archive has no manifest')
  for (const part of manifest.parts) {
    const found = seen.get(part.name)
    if (found === undefined) throw BackupCorrupt(`The archive lacks ${part.name}`)
    if (found.bytes !== part.bytes || found.sha256 !== part.sha256) {
      throw BackupCorrupt(`${part.name} does not match the manifest (SHA-256 ${found.sha256}, expected ${part.sha256})`)
    }
  }
  return manifest
}
