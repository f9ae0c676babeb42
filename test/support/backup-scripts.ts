/**
 * The Kubernetes backup and restore Jobs' scripts, run for real (the fake API server runs no Job):
 * in the backup test image on the Docker engine, with the instance database Secret's variables for
 * the machine's PostgreSQL and host folders as the claims.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { dockerClient } from './docker/engine.ts'
import { demuxFrames } from '../../provisioning/docker/logs.ts'
import { backupTestImage } from './backups.ts'

export const adminUrl = (): string => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** Runs `script` with the Secret's variables plus `env`, the claims bound as `binds`; answers its exit code and log. */
export async function runScript (t: Test, script: string, env: Record<string, string>, binds: string[]): Promise<{ code: number, log: string }> {
  const url = new URL(adminUrl())
  const container = await dockerClient().createContainer({
    Image: await backupTestImage(),
    // The stand-in image has busybox without its applet links (mv, cut, dirname …); a real postgres image has coreutils.
    Entrypoint: ['/bin/sh', '-c', 'mkdir -p /tmp/bb && /bin/busybox --install -s /tmp/bb && PATH="$PATH:/tmp/bb" exec sh -c "$0"', script],
    User: `${process.getuid?.() ?? 0}`,
    Env: [`HOST=${url.hostname}`, `PORT=${url.port || '5432'}`, `USER=${url.username}`, `PASSWORD=${url.password}`, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)],
    Labels: { 'erp.test-kube-backup-script': '1' },
    HostConfig: { NetworkMode: 'host', Binds: binds }
  })
  t.teardown(() => container.remove({ force: true }).catch(() => {}))
  await container.start()
  const { StatusCode } = await container.wait() as { StatusCode: number }
  return { code: StatusCode, log: demuxFrames(await container.logs({ stdout: true, stderr: true }) as unknown as Buffer).text }
}

/** Host folders for the data claim (a small filestore, a hidden file included) and the backup claim, removed after the test. */
export function claimFolders (t: Test, prefix: string): { root: string, data: string, backups: string } {
  const root = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const data = join(root, 'data')
  const backups = join(root, 'backups')
  mkdirSync(join(data, 'filestore', 'ab'), { recursive: true })
  mkdirSync(backups)
  writeFileSync(join(data, 'filestore', 'ab', 'cafe'), 'invoice-1\n')
  writeFileSync(join(data, '.hidden'), 'keep\n')
  return { root, data, backups }
}
