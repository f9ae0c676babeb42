import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BUILD_SCRIPT = fileURLToPath(new URL('./docker/build-git-sync-image.sh', import.meta.url))
let built: Promise<string> | undefined

/** $ADDON_SYNC_TEST_IMAGE, else built once per process (build-git-sync-image.sh; a no-op when up to date). */
export function gitSyncTestImage (): Promise<string> {
  built ??= new Promise<string>((resolve, reject) => {
    const fromEnv = process.env.ADDON_SYNC_TEST_IMAGE
    const args = fromEnv === undefined || fromEnv === '' ? [BUILD_SCRIPT] : [BUILD_SCRIPT, fromEnv]
    execFile('bash', args, { timeout: 180_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${BUILD_SCRIPT} failed: ${error.message}\n${err}`))
      else resolve(out.trim().split('\n').pop() ?? '')
    })
  })
  return built
}
