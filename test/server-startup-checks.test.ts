/**
 * `npm start` checks what an instance will need on each enabled backend (the
 * engine, the image, the database reachable from a container) and prints one
 * line per problem, naming the setting that fixes it; the service still starts.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { createTestDatabase } from './support/database.ts'
import { requireDockerOrSkipLoudly, testImage } from './support/docker/engine.ts'
import { freePort, startServer, waitForReady } from './support/process.ts'

t.setTimeout(180_000)
const engine = await requireDockerOrSkipLoudly(t)

async function problemLines (output: () => string, count: number): Promise<string[]> {
  const deadline = Date.now() + 30_000
  let lines: string[] = []
  while (Date.now() < deadline) {
    lines = output().split('\n').filter((line) => line.startsWith('Not ready for instances: '))
    if (lines.length >= count) return lines
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`expected ${count} problem lines, got:\n${output()}`)
}

engine.test('one line per problem, each with the setting that fixes it', async (t) => {
  const port = await freePort()
  const missing = `erp-none-${randomBytes(3).toString('hex')}`
  const server = startServer({
    PORT: String(port),
    DATABASE_URL: await createTestDatabase(t),
    JWT_SECRET: 'x'.repeat(40),
    INSTANCE_BACKENDS: 'docker,kubernetes',
    ERP_IMAGE: `${missing}:{version}`,
    ERP_VERSIONS: '17.0,18.0',
    // A server no container can reach: nothing listens on that port.
    ERP_DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`
  })
  t.teardown(() => { server.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, server)
  const lines = await problemLines(server.output, 4)
  t.equal(lines.length, 4, lines.join('\n'))
  t.ok(lines.some((line) => /Instances on kubernetes: not configured: .*KUBECONFIG.*INSTANCE_BACKENDS/.test(line)), 'kubernetes: not configured, KUBECONFIG')
  for (const version of ['17.0', '18.0']) {
    t.ok(lines.some((line) => line.includes(`image ${missing}:${version} (ERP ${version}) is not in the Docker engine and cannot be pulled`) && line.includes('ERP_IMAGE')), `the image of ${version}, ERP_IMAGE`)
  }
  t.ok(lines.some((line) => /instance containers cannot reach their database server at host\.docker\.internal:\d+ .*ERP_DATABASE_HOST/.test(line)), 'the database, ERP_DATABASE_HOST')
  t.equal((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, 200, 'and the service serves meanwhile')
  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})

engine.test('nothing to say when every backend can serve', async (t) => {
  const port = await freePort()
  // The stand-in image is in the engine, and containers reach the tests' PostgreSQL (testImage() sets up its relay).
  const image = await testImage()
  const server = startServer({ PORT: String(port), DATABASE_URL: await createTestDatabase(t), JWT_SECRET: 'x'.repeat(40), INSTANCE_BACKENDS: 'docker', ERP_IMAGE: image, ERP_VERSIONS: '17.0' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, server)
  await new Promise((resolve) => setTimeout(resolve, 3000))
  t.notMatch(server.output(), 'Not ready for instances')
  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})

t.test('a PORT another process holds stops the start with one line, exit 1', async (t) => {
  const { createServer } = await import('node:net')
  const holder = createServer()
  const port = await freePort()
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve))
  t.teardown(() => holder.close())
  const server = startServer({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: await createTestDatabase(t), JWT_SECRET: 'x'.repeat(40) })
  t.teardown(() => { server.child.kill('SIGKILL') })
  t.equal(await server.exited, 1)
  const lines = server.output().trim().split('\n')
  t.equal(lines.length, 1, server.output())
  t.match(lines[0], new RegExp(`^Invalid configuration: PORT="${port}" \\(another process listens on that port\\); allowed: a free port; example: PORT=\\d+$`))
})
