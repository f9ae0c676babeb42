/**
 * A filestore restore on the real engine unpacks into a staging folder and swaps it in only
 * once whole: an unpack that fails midway (a truncated tar, an entry that cannot be written,
 * a file that is no tar) leaves every old file as it was and no staging folder behind. The
 * replaced files are kept until the restore settles, and put back when it cannot, from wherever
 * a killed attempt stopped.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import t from 'tap'
import { pack } from 'tar-stream'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { createDockerBackupRunner } from '../../../provisioning/docker/backup-runner.ts'
import { createEngineCall } from '../../../provisioning/docker/engine-calls.ts'
import { dataVolumeName } from '../../../provisioning/docker/names.ts'
import { backupTestImage, inFilestore } from '../../support/backups.ts'
import { cleanupContainers, dockerClient, newTestRun, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { uniqueSubdomain } from '../../support/instances.ts'

const docker = await requireDockerOrSkipLoudly(t)

/** inFilestore as root: these volumes are made here and no ERP ever mounted them, so their root is root's (Docker populates a volume from the image of its first container only). */
const onVolume = (subdomain: string, script: string): Promise<string> => inFilestore(subdomain, script, { user: '0' })

/** Every path under /data, hidden ones included, with a file's content: what must not change. */
const LIST = 'cd /data && find . | sort | while read -r f; do if [ -f "$f" ]; then echo "$f $(cat "$f")"; else echo "$f/"; fi; done'

/** A tar of `entries` (path to content, or null for a folder), as the engine's archive API reads it. */
async function tarOf (entries: Array<[string, string | null]>): Promise<Buffer> {
  const tar = pack()
  for (const [name, content] of entries) {
    if (content === null) tar.entry({ name, type: 'directory', mode: 0o755 })
    else tar.entry({ name, mode: 0o644 }, content)
  }
  tar.finalize()
  return buffer(tar)
}

docker.test('importFilestore swaps a complete unpack in, a failed one changes nothing, and an unsettled one can be put back', async (t) => {
  const engine = dockerClient()
  const run = newTestRun()
  t.teardown(() => cleanupContainers(run.label))
  const runner = createDockerBackupRunner(engine, createEngineCall(engine, 60_000), { imageTemplate: await backupTestImage(), labels: run.labels, pullTimeoutMs: 10_000 })
  const scratch = mkdtempSync(join(tmpdir(), 'filestore-import-'))
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }))
  const volumeOf = async (prefix: string) => {
    const subdomain = uniqueSubdomain(prefix)
    await engine.createVolume({ Name: dataVolumeName(subdomain), Labels: run.labels })
    t.teardown(() => engine.getVolume(dataVolumeName(subdomain)).remove().catch(() => {}))
    return { instanceUid: randomUUID(), subdomain } as InstanceSpec
  }

  // The backup's filestore, exported as a backup exports it; a large file makes a cut land mid-entry.
  const source = await volumeOf('fsrc')
  await onVolume(source.subdomain, `mkdir -p /data/filestore/db/ab && echo restored > /data/filestore/db/ab/cafe && echo new-config > /data/config && echo h > /data/.session && head -c 300000 /dev/zero | tr '\\0' x > /data/filestore/db/big`)
  const exported = join(scratch, 'filestore.tar')
  await runner.exportFilestore(source, 0, exported)
  const backedUp = await onVolume(source.subdomain, LIST)

  const target = await volumeOf('fdst')
  await onVolume(target.subdomain, 'mkdir -p /data/filestore/db/00 && echo live > /data/filestore/db/00/beef && echo old-config > /data/config && echo s > /data/.hidden && ln -s config /data/link')
  const live = await onVolume(target.subdomain, LIST)

  const whole = readFileSync(exported)
  const failing: Array<[string, Buffer]> = [
    ['a tar cut off in the middle of an entry', whole.subarray(0, Math.floor(whole.length / 2))],
    ['a tar with an entry under a file, after entries that were written', await tarOf([['data/', null], ['data/written', 'x'], ['data/file', 'y'], ['data/file/below', 'z']])],
    ['a file that is no tar', randomBytes(20_000)],
    ['a tar without the data/ folder', await tarOf([['elsewhere/', null], ['elsewhere/file', 'x']])]
  ]
  for (const [what, bytes] of failing) {
    const file = join(scratch, 'bad.tar')
    writeFileSync(file, bytes)
    await t.rejects(runner.importFilestore(target, 0, file), what)
    t.equal(await onVolume(target.subdomain, LIST), live, `${what}: every old file is there, unchanged, and no staging folder remains`)
  }

  // A whole import, and the database could not be promoted: the replaced files come back.
  await runner.importFilestore(target, 0, exported)
  t.match(await onVolume(target.subdomain, 'cat /data/config; ls -A /data/.restore-old'), /^new-config\n.*\.aside-complete/s, 'swapped in, the replaced entries kept aside')
  await runner.settleFilestore(target, 0, 'replaced')
  t.equal(await onVolume(target.subdomain, LIST), live, 'put back: every old file, hidden ones and the link, and nothing restored or left over')

  // An attempt killed while moving the old entries aside (no marker yet), then one killed while moving the restored ones in.
  await onVolume(target.subdomain, 'mkdir -p /data/.restore-staging/data/filestore /data/.restore-old && mv /data/config /data/.hidden /data/.restore-old/ && echo x > /data/.restore-staging/data/filestore/x')
  await runner.settleFilestore(target, 0, 'replaced')
  t.equal(await onVolume(target.subdomain, LIST), live, 'cut while moving aside: the moved entries come back beside the others')
  await runner.importFilestore(target, 0, exported)
  await onVolume(target.subdomain, 'mkdir -p /data/.restore-staging/data && mv /data/config /data/.session /data/.restore-staging/data/')
  await runner.settleFilestore(target, 0, 'replaced')
  t.equal(await onVolume(target.subdomain, LIST), live, 'cut while moving in: the restored entries go, the old ones come back')

  // What a killed attempt could leave, again, when the next attempt starts: it is put back first, then replaced whole.
  await onVolume(target.subdomain, 'mkdir -p /data/.restore-staging/data /data/.restore-old && echo stale > /data/.restore-staging/data/stale && mv /data/config /data/.restore-old/')
  await runner.importFilestore(target, 0, exported)
  await runner.settleFilestore(target, 0, 'restored')
  t.equal(await onVolume(target.subdomain, LIST), backedUp, 'exactly the backup\'s files: the old ones, hidden ones and the link gone, nothing stale')
  t.same(await engine.listContainers({ all: true, filters: { label: [run.label] } }), [], 'every one-off container was removed')
})
