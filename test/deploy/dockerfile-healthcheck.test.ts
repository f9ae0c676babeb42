/**
 * The image's HEALTHCHECK probes the port the process serves: PORT, or HEALTHCHECK_PORT when set.
 * The command is read from the Dockerfile and run with node as the engine runs it (exec form,
 * the container's environment), against real HTTP servers; `npm run check:image` runs the
 * built image on a PORT other than 3000 and waits for it to turn healthy.
 */
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

const dockerfile = await readFile(new URL('../../Dockerfile', import.meta.url), 'utf8')
const instructions = dockerfile.replace(/\\\n\s*/g, ' ').split('\n')

/** The exec-form command of the final stage's HEALTHCHECK. */
function healthCheckCommand (): string[] {
  const line = instructions.filter((l) => l.startsWith('HEALTHCHECK ')).at(-1)
  const json = /\bCMD (\[.*\])\s*$/.exec(line ?? '')?.[1]
  if (json === undefined) throw new Error('no HEALTHCHECK CMD [...] in the Dockerfile')
  return JSON.parse(json) as string[]
}

/** The final stage's ENV settings. */
function imageEnv (): Record<string, string> {
  const stages = instructions.map((l, i) => l.startsWith('FROM ') ? i : -1).filter((i) => i >= 0)
  const env: Record<string, string> = {}
  for (const line of instructions.slice(stages.at(-1))) {
    if (!line.startsWith('ENV ')) continue
    for (const [, name, value] of line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)) env[name!] = value!
  }
  return env
}

async function serve (t: Test, status = 200): Promise<number> {
  const server: Server = createServer((req, res) => { res.statusCode = req.url === '/health/live' ? status : 404; res.end() })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return (server.address() as AddressInfo).port
}

/** Runs the check with the image's environment plus `env`; answers its exit code. */
async function check (env: Record<string, string>): Promise<number> {
  const [, ...args] = healthCheckCommand()
  const base = { PATH: process.env.PATH ?? '', ...imageEnv() }
  return await new Promise((resolve) => {
    execFile(process.execPath, args, { env: { ...base, ...env }, timeout: 10_000 }, (error) => resolve(error === null ? 0 : Number(error.code ?? 1)))
  })
}

t.test('the image sets no HEALTHCHECK_PORT of its own (it would hide PORT)', async (t) => {
  t.equal(healthCheckCommand()[0], 'node', 'the check is node itself (no curl in the image)')
  t.equal(imageEnv().PORT, '3000')
  t.notOk('HEALTHCHECK_PORT' in imageEnv())
})

t.test('a container started with another PORT is healthy: the check follows PORT', async (t) => {
  const port = await serve(t)
  t.equal(await check({ PORT: String(port) }), 0, `healthy on PORT=${port}`)
})

t.test('nothing served on PORT, or /health/live failing there: unhealthy', async (t) => {
  const failing = await serve(t, 503)
  const gone = createServer()
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve))
  const closed = (gone.address() as AddressInfo).port
  await new Promise((resolve) => gone.close(resolve))
  t.equal(await check({ PORT: String(failing) }), 1, 'a 503 is unhealthy')
  t.equal(await check({ PORT: String(closed) }), 1, 'nothing listening there')
  t.equal(await check({}), 1, 'the image\'s PORT (3000), where nothing listens here')
})

t.test('HEALTHCHECK_PORT, when set, wins over PORT (the authorization server in the same image)', async (t) => {
  const auth = await serve(t)
  const portal = await serve(t, 503)
  t.equal(await check({ PORT: String(portal), HEALTHCHECK_PORT: String(auth) }), 0)
})
