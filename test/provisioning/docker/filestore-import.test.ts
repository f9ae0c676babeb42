/**
 * A filestore restore on the real engine unpacks into a staging folder and swaps it in only
 * once whole: an unpack that fails midway (a truncated tar, an entry that cannot be written,
 * a file that is no tar) leaves every old file as it was and no staging folder behind.
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

docker.test('importFilestore swaps a complete unpack in, and a failed one changes nothing', async (t) => {
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
    return { instanceId: randomUUID(), subdomain } as InstanceSpec
  }

  // The backup's filestore, exported as a backup exports it; a large file makes a cut land mid-entry.
  const source = await volumeOf('fsrc')
  await inFilestore(source.subdomain, `mkdir -p /data/filestore/db/ab && echo restored > /data/filestore/db/ab/cafe && echo new-config > /data/config && echo h > /data/.session && head -c 300000 /dev/zero | tr '\\0' x > /data/filestore/db/big`)
  const exported = join(scratch, 'filestore.tar')
  await runner.exportFilestore(source, 0, exported)
  const backedUp = await inFilestore(source.subdomain, LIST)

  const target = await volumeOf('fdst')
  await inFilestore(target.subdomain, 'mkdir -p /data/filestore/db/00 && echo live > /data/filestore/db/00/beef && echo old-config > /data/config && echo s > /data/.hidden && ln -s config /data/link')
  const live = await inFilestore(target.subdomain, LIST)

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
    t.equal(await inFilestore(target.subdomain, LIST), live, `${what}: every old file is there, unchanged, and no staging folder remains`)
  }

  // What a killed attempt could leave: a staging folder and a folder moved aside.
  await inFilestore(target.subdomain, 'mkdir -p /data/.restore-staging/data /data/.restore-old && echo stale > /data/.restore-staging/data/stale && echo stale > /data/.restore-old/stale')
  await runner.importFilestore(target, 0, exported)
  t.equal(await inFilestore(target.subdomain, LIST), backedUp, 'exactly the backup\'s files: the old ones, hidden ones and the link gone, nothing stale')
  t.same(await engine.listContainers({ all: true, filters: { label: [run.label] } }), [], 'every one-off container was removed')
})
