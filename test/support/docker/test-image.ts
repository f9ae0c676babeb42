/** The stand-in ERP image the Docker tests run (build-test-image.sh), and variants of it. */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { ensureDatabaseRelay } from './database-relay.ts'
import { dockerClient } from './engine.ts'

export const BUILD_SCRIPT = fileURLToPath(new URL('./build-test-image.sh', import.meta.url))
export const DEFAULT_TEST_IMAGE = 'erp-test-image:2'

let image: Promise<string> | undefined

/**
 * The test image's tag: $ERP_TEST_IMAGE, else erp-test-image:2, brought up to date once per
 * process by build-test-image.sh (which does nothing when the tag already has this checkout's
 * content): the image's behaviour is part of what the tests assume, and an engine shared with
 * another checkout may hold another version under the same tag.
 */
export function testImage (): Promise<string> {
  image ??= resolveTestImage()
  return image
}

async function resolveTestImage (): Promise<string> {
  const fromEnv = process.env.ERP_TEST_IMAGE
  const wanted = fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_TEST_IMAGE
  const env = { ...process.env }
  delete env.ERP_TEST_IMAGE
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('bash', [BUILD_SCRIPT, wanted], { env, timeout: 120_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${BUILD_SCRIPT} ${wanted} failed: ${error.message}\n${err}`))
      else resolve(out)
    })
  })
  const tag = stdout.trim().split('\n').pop() ?? ''
  if (tag !== wanted) throw new Error(`${BUILD_SCRIPT} printed ${JSON.stringify(stdout)}, expected ${wanted}`)
  await ensureDatabaseRelay(dockerClient(), tag)
  return tag
}

/**
 * The test image with `env` baked in (e.g. `{ ERP_INIT_SECONDS: '3' }`: an initialisation that
 * takes time, as Odoo's `-i base` does), tagged `erp-test-image-env:<hash of env>`, once per engine
 * and content. The backend passes no free-form environment to an instance, so an image carries it.
 */
export async function testImageWith (env: Record<string, string>): Promise<string> {
  const docker = dockerClient()
  const base = await docker.getImage(await testImage()).inspect()
  const entries = Object.entries(env).sort(([a], [b]) => a.localeCompare(b))
  const tag = createHash('sha256').update(base.Id).update(JSON.stringify(entries)).digest('hex').slice(0, 16)
  const image = `erp-test-image-env:${tag}`
  if (await docker.getImage(image).inspect().then(() => true, () => false)) return image
  const container = await docker.createContainer({ Image: base.Id, Labels: { 'erp.test-image.env': '1' } })
  try {
    await container.commit({ repo: 'erp-test-image-env', tag, changes: entries.map(([k, v]) => `ENV ${k}=${v}`).join('\n') })
  } finally {
    await container.remove({ force: true })
  }
  return image
}
