/** Moving single files in and out of containers through the engine's archive API (tar streams). */
import { createReadStream, createWriteStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { Duplex } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { extract, pack } from 'tar-stream'
import { SESSIONS } from '../filestore-swap.ts'

/** Writes the one regular file of the tar `archive` (as getArchive answers for a file) to `file`. */
export async function saveSingleFile (archive: NodeJS.ReadableStream, file: string): Promise<void> {
  const entries = extract()
  const done = pipeline(archive, entries)
  done.catch(() => {}) // awaited below
  let found = false
  for await (const entry of entries) {
    if (entry.header.type === 'file' && !found) {
      found = true
      await pipeline(entry, createWriteStream(file))
    } else {
      entry.resume()
    }
  }
  await done
  if (!found) throw new Error(`the container's archive held no file for ${basename(file)}`)
}

/** A tar stream holding `file` alone, as `name`, for putArchive. */
export async function singleFileTar (file: string, name: string): Promise<NodeJS.ReadableStream> {
  const { size } = await stat(file)
  const tar = pack()
  const sink = tar.entry({ name, size, mode: 0o644 })
  pipeline(createReadStream(file), sink).then(() => tar.finalize(), (error: Error) => tar.destroy(error))
  return tar as unknown as NodeJS.ReadableStream
}

/**
 * A tar-to-tar stream that leaves out `<root>/sessions` and everything under it (the ERP's web
 * sessions: logins of the moment, not data), every other entry as it came.
 */
export function withoutSessions (root: string): Duplex {
  const folder = `${root}/${SESSIONS}`
  const left = (name: string): boolean => {
    const path = name.replace(/^\.\//, '').replace(/\/$/, '')
    return path === folder || path.startsWith(`${folder}/`)
  }
  const entries = extract()
  const tar = pack()
  entries.on('entry', (header, stream, next) => {
    if (left(header.name)) {
      stream.on('end', () => next())
      stream.resume()
      return
    }
    pipeline(stream, tar.entry(header)).then(() => next(), next)
  })
  entries.on('finish', () => tar.finalize())
  return Duplex.from({ writable: entries, readable: tar })
}
