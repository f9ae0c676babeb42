/** Moving single files in and out of containers through the engine's archive API (tar streams). */
import { createReadStream, createWriteStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { extract, pack } from 'tar-stream'

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
