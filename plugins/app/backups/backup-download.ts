import { BackupRangeInvalid } from './backups.errors.ts'

export type ByteRange = { start: number, end: number }

/**
 * The one byte range a `Range` header asks of `size` bytes (RFC 9110 14.1.2):
 * `bytes=a-b`, `bytes=a-`, `bytes=-n`. Undefined means the whole archive (no
 * header, another unit, several ranges: a full answer is allowed for those).
 * A range wholly outside the archive is BACKUP_RANGE_NOT_SATISFIABLE (416).
 */
export function parseRange (header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return undefined
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) throw BackupRangeInvalid(`bytes=-${last} asks for nothing of ${size} bytes`, { size })
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (last !== '' && Number(last) < start) return undefined // not a valid range: ignored
  if (start >= size) throw BackupRangeInvalid(`bytes=${first}-${last} is outside the archive's ${size} bytes`, { size })
  return { start, end }
}
