import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { describeParts, hashFile, PARTS, readArchive, writeArchive, type BackupManifest } from '../../../../plugins/app/backups/backup-archive.ts'
import { createFileBackupStore } from '../../../../plugins/app/backups/backup-store.ts'

function folder (t: { teardown: (fn: () => unknown) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'backup-archive-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function archiveOf (t: { teardown: (fn: () => unknown) => void }) {
  const parts = folder(t)
  const database = randomBytes(300_000)
  const filestore = randomBytes(70_001)
  writeFileSync(join(parts, PARTS.database), database)
  writeFileSync(join(parts, PARTS.filestore), filestore)
  const manifest: BackupManifest = {
    format: 1, backup_id: 7, created_at: new Date().toISOString(), instance: { id: 3, name: 'Prod', subdomain: 'prod' },
    tenant: { id: 't', subdomain: 'acme' }, erp_version: '17.0', pg_major: 15, parts: await describeParts(parts)
  }
  const file = join(folder(t), 'archive.tar')
  const written = await writeArchive(file, manifest, parts)
  return { file, manifest, written, database, filestore }
}

t.test('an archive holds the manifest and the parts, each part as the manifest describes it', async (t) => {
  const { file, manifest, written, database, filestore } = await archiveOf(t)
  t.same(written, await hashFile(file), 'the size and SHA-256 answered are the file\'s')
  t.same(manifest.parts.map((part) => [part.name, part.bytes]), [[PARTS.database, 300_000], [PARTS.filestore, 70_001]])
  const out = folder(t)
  const read = await readArchive(file, out)
  t.same(read, manifest)
  t.ok(readFileSync(join(out, PARTS.database)).equals(database))
  t.ok(readFileSync(join(out, PARTS.filestore)).equals(filestore))
})

t.test('one changed byte anywhere in a part is refused as BACKUP_CORRUPT', async (t) => {
  const { file } = await archiveOf(t)
  const bytes = readFileSync(file)
  for (const offset of [512 * 4 + 10, bytes.length - 2048 - 512 - 100]) {
    const copy = Buffer.from(bytes)
    copy[offset] = (copy[offset] ?? 0) ^ 0xff
    const damaged = join(folder(t), 'damaged.tar')
    writeFileSync(damaged, copy)
    await t.rejects(readArchive(damaged, folder(t)), { code: 'BACKUP_CORRUPT', statusCode: 422 }, `byte ${offset}`)
  }
  const truncated = join(folder(t), 'truncated.tar')
  writeFileSync(truncated, bytes.subarray(0, 100_000))
  await t.rejects(readArchive(truncated, folder(t)), { code: 'BACKUP_CORRUPT' }, 'a truncated archive')
})

t.test('the store shows an archive only once it is whole, and a later attempt clears what a crashed one left', async (t) => {
  const root = folder(t)
  const store = createFileBackupStore(root)
  const key = store.keyFor('tenant-a', 4, 9)
  t.equal(key, 'tenant-a/4/backup-9.tar')
  await t.rejects(store.save(key, async (temp) => {
    writeFileSync(temp, 'half')
    t.equal(await store.size(key), undefined, 'nothing under the key while it is written')
    throw new Error('crash')
  }), /crash/)
  t.same(readdirSync(join(root, 'tenant-a/4')), [], 'a failed write leaves nothing')
  writeFileSync(join(root, 'tenant-a/4/backup-9.tar.partial-deadbeef'), 'left by a killed process')
  await store.save(key, async (temp) => { writeFileSync(temp, 'whole') })
  t.same(readdirSync(join(root, 'tenant-a/4')), ['backup-9.tar'], 'exactly one archive, no temporary file')
  t.equal(await store.size(key), 5)
  const chunks: Buffer[] = []
  for await (const chunk of store.read(key, { start: 1, end: 3 })) chunks.push(chunk as Buffer)
  t.equal(Buffer.concat(chunks).toString(), 'hol')
  t.throws(() => store.localPath('../escape.tar'), /leaves the backup folder/)
  await store.remove(key)
  t.equal(await store.size(key), undefined)
})
