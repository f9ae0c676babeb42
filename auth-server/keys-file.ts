import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { deriveKey } from '../lib/secrets.ts'

/**
 * The signing keys file, sealed with AES-256-GCM under a key derived from
 * JWT_SECRET (HKDF info `oidc-signing-keys`): a copy of DATA_DIR alone does
 * not reveal the private keys. Format: JSON `{ v: 1, iv, tag, data }`, base64url.
 */
export interface SealedFile {
  read: () => Promise<unknown | undefined>
  /** Writes only if the file does not exist yet; false when another process won. */
  create: (content: unknown) => Promise<boolean>
  replace: (content: unknown) => Promise<void>
}

export function createSealedFile (file: string, jwtSecret: string): SealedFile {
  const key = deriveKey(jwtSecret, 'oidc-signing-keys')

  function seal (content: unknown): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    const data = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()])
    return `${JSON.stringify({ v: 1, iv: iv.toString('base64url'), tag: cipher.getAuthTag().toString('base64url'), data: data.toString('base64url') })}\n`
  }

  function open (text: string): unknown {
    const sealed = JSON.parse(text) as { v?: number, iv?: string, tag?: string, data?: string }
    if (sealed.v !== 1 || sealed.iv === undefined || sealed.tag === undefined || sealed.data === undefined) {
      throw new Error(`${file}: unknown format`)
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'), { authTagLength: 16 })
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'))
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()])
      return JSON.parse(plain.toString('utf8'))
    } catch (cause) {
      throw new Error(`${file} cannot be decrypted (was JWT_SECRET changed?)`, { cause })
    }
  }

  async function ensureFolder (): Promise<void> {
    await mkdir(dirname(dirname(file)), { recursive: true })
    await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  }

  return {
    async read () {
      try {
        return open(await readFile(file, 'utf8'))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    },

    async create (content) {
      await ensureFolder()
      try {
        await writeFile(file, seal(content), { mode: 0o600, flag: 'wx' })
        return true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
        throw error
      }
    },

    async replace (content) {
      await ensureFolder()
      const temporary = `${file}.${process.pid}.tmp`
      await writeFile(temporary, seal(content), { mode: 0o600 })
      await rename(temporary, file)
    }
  }
}
