/**
 * Where archives live. The filesystem store keeps them under BACKUP_DIR as
 * `<tenant id>/<instance id>/backup-<id>.tar`. An archive is written under a
 * temporary name beside its key and renamed into place once whole (rename is
 * atomic on one filesystem): a reader never sees a partial archive, and a
 * crashed attempt leaves only a temporary file, removed by the next attempt.
 */
import { randomBytes } from 'node:crypto'
import { createReadStream, type ReadStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

export interface BackupStore {
  keyFor: (tenantId: string, instanceId: number, backupId: number) => string
  /** Runs `write` on a fresh temporary file beside `key` and renames it to `key` once `write` resolves. */
  save: <T>(key: string, write: (file: string) => Promise<T>) => Promise<T>
  /** Bytes of the archive, undefined when there is none. */
  size: (key: string) => Promise<number | undefined>
  /** The archive, or the bytes start..end (inclusive) of it. */
  read: (key: string, range?: { start: number, end: number }) => ReadStream
  /** A local path of the archive (the filesystem store's own file). */
  localPath: (key: string) => string
  /** Removes the archive and any temporary file of it; missing is fine. */
  remove: (key: string) => Promise<void>
  /**
   * An empty scratch folder for the parts of one job (`name`, e.g. `backup-12`): what a
   * killed attempt left there is removed first; `done` removes the folder.
   */
  scratch: (name: string) => Promise<{ dir: string, done: () => Promise<void> }>
}

const TEMP_MARK = '.partial-'

/** Whether the control plane's store holds the archive; a backend's own location (`kubernetes:<claim>/…`) has a scheme. */
export const inStore = (key: string): boolean => !key.includes(':')

export function createFileBackupStore (root: string): BackupStore {
  const base = resolve(root)

  function localPath (key: string): string {
    const path = resolve(base, key)
    if (!path.startsWith(`${base}/`)) throw new TypeError(`backup key ${JSON.stringify(key)} leaves the backup folder`)
    return path
  }

  /** Temporary files of `key` left by crashed attempts. */
  async function leftovers (path: string): Promise<string[]> {
    const names = await readdir(dirname(path)).catch(() => [] as string[])
    return names.filter((name) => name.startsWith(`${basename(path)}${TEMP_MARK}`)).map((name) => join(dirname(path), name))
  }

  return {
    keyFor: (tenantId, instanceId, backupId) => `${tenantId}/${instanceId}/backup-${backupId}.tar`,

    async save (key, write) {
      const path = localPath(key)
      await mkdir(dirname(path), { recursive: true })
      for (const stale of await leftovers(path)) await rm(stale, { force: true })
      const temp = `${path}${TEMP_MARK}${randomBytes(6).toString('hex')}`
      try {
        const result = await write(temp)
        const handle = await open(temp, 'r')
        try { await handle.sync() } finally { await handle.close() }
        await rename(temp, path)
        return result
      } catch (error) {
        await rm(temp, { force: true })
        throw error
      }
    },

    async size (key) {
      try {
        const info = await stat(localPath(key))
        return info.size
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    },

    // 4 MiB reads: a 64th of the chunks of the 64 KiB default (measured: about 0.3 of a plain read's speed with 64 KiB, 0.43-0.52 with 4 MiB), a few MiB per download.
    read: (key, range) => createReadStream(localPath(key), { highWaterMark: 4 * 2 ** 20, ...(range === undefined ? {} : { start: range.start, end: range.end }) }),

    localPath,

    async remove (key) {
      const path = localPath(key)
      await rm(path, { force: true })
      for (const stale of await leftovers(path)) await rm(stale, { force: true })
    },

    async scratch (name) {
      if (!/^[a-z0-9-]+$/.test(name)) throw new TypeError(`scratch name ${JSON.stringify(name)} must be a-z, 0-9 and '-'`)
      const dir = join(base, '.scratch', name)
      await rm(dir, { recursive: true, force: true })
      await mkdir(dir, { recursive: true })
      return { dir, done: async () => { await rm(dir, { recursive: true, force: true }) } }
    }
  }
}
