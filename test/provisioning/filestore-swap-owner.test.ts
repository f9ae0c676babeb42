/**
 * The swap step of a filestore restore gives the data folder itself the owner of the restored data
 * when the restore makes a copy: a new instance's volume is fresh, first mounted by the restore's
 * container, so Docker left its root to root and the ERP (uid 101) could not make its sessions
 * folder there. A restore in place, or restored data owned by root, leaves the folder's owner as it
 * is; a chown the script may not do (a Kubernetes Job without the right, where the pod's fsGroup
 * makes the volume writable) does not fail the restore. Run for real in the backup image on a
 * fresh named volume of the Docker engine.
 */
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { filestoreRename, stagingPath, swapStagedIn } from '../../provisioning/filestore-swap.ts'
import { demuxFrames } from '../../provisioning/docker/logs.ts'
import { backupTestImage } from '../support/backups.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../support/docker/engine.ts'

const docker = await requireDockerOrSkipLoudly(t)
const ROOT = '/data'
const STAGED = stagingPath(ROOT)

/** Runs `script` as `user` in the backup image with `volume` at /data; answers its exit code and log. */
async function run (t: Test, volume: string, user: string, script: string, env: Record<string, string> = {}): Promise<{ code: number, log: string }> {
  const container = await dockerClient().createContainer({
    Image: await backupTestImage(),
    Entrypoint: ['/bin/sh', '-c', script],
    User: user,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: { 'erp.test-filestore-swap': '1' },
    HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: ROOT }] }
  })
  t.teardown(() => container.remove({ force: true }).catch(() => {}))
  await container.start()
  const { StatusCode } = await container.wait() as { StatusCode: number }
  return { code: StatusCode, log: demuxFrames(await container.logs({ stdout: true, stderr: true }) as unknown as Buffer).text }
}

/**
 * A fresh volume (its root 0:0, as Docker leaves one no image populated) holding a staged archive
 * of the source database `src`, owned by `owner`; `prepare` runs first, as root.
 */
async function volumeWithStaged (t: Test, owner: string, prepare = ''): Promise<string> {
  const volume = `erp-test-swap-owner-${randomUUID().slice(0, 8)}`
  await dockerClient().createVolume({ Name: volume, Labels: { 'erp.test-filestore-swap': '1' } })
  t.teardown(() => dockerClient().getVolume(volume).remove({ force: true }).catch(() => {}))
  const made = await run(t, volume, '0', `set -e; ${prepare}
mkdir -p ${STAGED}/data/filestore/src/ab ${STAGED}/data/sessions
echo invoice > ${STAGED}/data/filestore/src/ab/cafe
chown -R ${owner} ${STAGED}/data`)
  t.equal(made.code, 0, made.log)
  return volume
}

const owners = async (t: Test, volume: string): Promise<string> =>
  (await run(t, volume, '0', `cd ${ROOT} && stat -c '%u:%g %a %n' . filestore/* && ls -A`)).log

docker.test('a copy: the data folder takes the restored data\'s owner, its mode kept, the sessions left out', async (t) => {
  const volume = await volumeWithStaged(t, '101:101')
  const swapped = await run(t, volume, '0', swapStagedIn(ROOT), filestoreRename('src', 'copy'))
  t.equal(swapped.code, 0, swapped.log)
  t.equal(await owners(t, volume), '101:101 755 .\n101:101 755 filestore/copy\n.restore-old\nfilestore\n', 'the root is the ERP\'s now')
})

docker.test('a restore in place keeps the data folder\'s owner; so does a copy of root-owned data', async (t) => {
  const inPlace = await volumeWithStaged(t, '101:101')
  const swapped = await run(t, inPlace, '0', swapStagedIn(ROOT))
  t.equal(swapped.code, 0, swapped.log)
  t.match(await owners(t, inPlace), /^0:0 755 \.\n101:101 755 filestore\/src\n/, 'in place: the root as it was')

  const rootOwned = await volumeWithStaged(t, '0:0')
  const copied = await run(t, rootOwned, '0', swapStagedIn(ROOT), filestoreRename('src', 'copy'))
  t.equal(copied.code, 0, copied.log)
  t.match(await owners(t, rootOwned), /^0:0 755 \.\n0:0 755 filestore\/copy\n/, 'no owner to give: the root as it was')
})

docker.test('a chown the restore may not do does not fail it (as a Kubernetes Job under an fsGroup)', async (t) => {
  // The root and the staged data writable by the group 4242 (the fsGroup), the data owned by 101: uid 4242 may move, not chown.
  const volume = await volumeWithStaged(t, '101:4242', `chown 4242:4242 ${ROOT} && chmod 775 ${ROOT} && mkdir ${STAGED} && chown 4242:4242 ${STAGED}`)
  const group = await run(t, volume, '0', `chmod -R g+w ${STAGED}/data`)
  t.equal(group.code, 0, group.log)
  const swapped = await run(t, volume, '4242:4242', swapStagedIn(ROOT), filestoreRename('src', 'copy'))
  t.equal(swapped.code, 0, swapped.log)
  t.match(swapped.log, 'the data folder keeps its owner: chown to 101:4242 was refused')
  t.match(await owners(t, volume), /^4242:4242 775 \.\n101:4242 775 filestore\/copy\n/, 'restored, the root\'s owner unchanged')
})
