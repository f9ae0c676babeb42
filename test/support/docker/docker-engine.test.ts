/**
 * The Docker helper layer (engine.ts) and the test image, against the REAL engine via dockerode:
 * the container lifecycle the instance backend will drive (create with name, labels, env, a
 * port published on 127.0.0.1, a read-only bind mount and limits; start; stop; restart; a kill
 * behind our back; logs; remove) and the teardown by run label.
 *
 * Without an engine: the lifecycle tests are skipped loudly, or fail with DOCKER_TESTS=required.
 * The helpers' own no-engine behaviour is checked in child processes pointed at a missing socket.
 */
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Docker from 'dockerode'
import t from 'tap'
import {
  BUILD_SCRIPT,
  cleanupContainers,
  containerLogs,
  demux,
  execIn,
  newTestRun,
  publishedPort,
  requireDockerOrSkipLoudly,
  TEST_IMAGE_PORT,
  TEST_IMAGE_START_LINE,
  TEST_RUN_LABEL,
  testImage,
  waitForHttp
} from './engine.ts'

const PROBE = fileURLToPath(new URL('./fixtures/engine-probe.ts', import.meta.url))

const engine = await requireDockerOrSkipLoudly(t)
const docker = engine.docker
const run = newTestRun()
const hostDir = await mkdtemp(join(tmpdir(), 'erp-docker-test-'))
await writeFile(join(hostDir, 'hello.txt'), `mounted from the host for ${run.id}\n`)
// The ERP image runs as the user odoo (uid 101), not as root: the bind-mounted folder must be readable by others (mkdtemp makes it 0700).
await chmod(hostDir, 0o755)
t.teardown(async () => {
  if (engine.available) {
    const left = await cleanupContainers(run.label)
    if (left.length > 0) console.log(`# removed containers a failed test left behind: ${left.join(', ')}`)
  }
  await rm(hostDir, { recursive: true, force: true })
})

// --- helpers that need no engine ---------------------------------------------------------------

t.test('demux splits Docker\'s multiplexed stdout/stderr frames and passes TTY output through', async (t) => {
  const frame = (type: number, text: string): Buffer => {
    const body = Buffer.from(text)
    const header = Buffer.alloc(8)
    header[0] = type
    header.writeUInt32BE(body.length, 4)
    return Buffer.concat([header, body])
  }
  t.same(demux(Buffer.concat([frame(1, 'out 1\n'), frame(2, 'err 1\n'), frame(1, 'out 2\n')])),
    { stdout: 'out 1\nout 2\n', stderr: 'err 1\n' })
  t.same(demux(Buffer.from('plain tty output\n')), { stdout: 'plain tty output\n', stderr: '' })
  t.same(demux(Buffer.alloc(0)), { stdout: '', stderr: '' })
})

t.test('newTestRun gives a unique id and the erp.test-run label', async (t) => {
  const a = newTestRun()
  const b = newTestRun()
  t.not(a.id, b.id)
  t.equal(a.label, `${TEST_RUN_LABEL}=${a.id}`)
  t.same(a.labels, { [TEST_RUN_LABEL]: a.id })
  await t.rejects(cleanupContainers(' '), /needs a label filter/, 'an empty filter would match every container')
})

t.test('waitForHttp', async (t) => {
  t.test('polls through refused connections until the server answers 2xx', async (t) => {
    const port = await freePort()
    let server: Server | undefined
    const late = setTimeout(() => {
      server = createHttpServer((_req, res) => res.end('up')).listen(port, '127.0.0.1')
    }, 300)
    t.teardown(() => { clearTimeout(late); server?.close() })
    const answer = await waitForHttp(`http://127.0.0.1:${port}/`, 5000)
    t.equal(answer.status, 200)
    t.equal(answer.body, 'up')
    t.ok(answer.elapsedMs >= 250, `waited for the server (${answer.elapsedMs} ms)`)
  })
  t.test('gives up after the timeout, naming the last status or error', async (t) => {
    const server = createHttpServer((_req, res) => { res.statusCode = 503; res.end() }).listen(0, '127.0.0.1')
    t.teardown(() => server.close())
    await new Promise((resolve) => server.once('listening', resolve))
    const { port } = server.address() as { port: number }
    const started = Date.now()
    await t.rejects(waitForHttp(`http://127.0.0.1:${port}/`, 1000), /did not answer 2xx within 1000 ms \(last: HTTP 503\)/)
    t.ok(Date.now() - started < 4000, 'bounded by the timeout')
    await t.rejects(waitForHttp(`http://127.0.0.1:${await freePort()}/`, 200), /last: ECONNREFUSED/)
  })
})

t.test('without an engine', async (t) => {
  const missing = { DOCKER_HOST: 'unix:///nonexistent/docker.sock' }
  t.test('docker tests are skipped with a loud count, plain tests still run', async (t) => {
    const result = await runProbe(['suite'], { ...missing, DOCKER_TESTS: '' })
    t.equal(result.code, 0, 'the file passes')
    t.match(result.stdout, /^# DOCKER ENGINE NOT AVAILABLE: 2 docker tests did not run -- cannot reach the Docker engine at unix:\/\/\/nonexistent\/docker\.sock: ENOENT$/m)
    t.match(result.stdout, /ok \d - docker test one # SKIP DOCKER ENGINE NOT AVAILABLE/)
    t.match(result.stdout, /# \{ total: 3, pass: 1, skip: 2 \}/)
    t.match(result.stderr, /# DOCKER ENGINE NOT AVAILABLE: 2 docker tests did not run/, 'and on stderr')
  })
  t.test('with DOCKER_TESTS=required the file fails with a clear message', async (t) => {
    const result = await runProbe(['suite'], { ...missing, DOCKER_TESTS: 'required' })
    t.equal(result.code, 1, 'the file fails')
    t.match(result.stdout, /^not ok 1 - DOCKER_TESTS=required but the Docker engine is not available \(cannot reach the Docker engine at unix:\/\/\/nonexistent\/docker\.sock: ENOENT\)\. Start dockerd/m)
    t.match(result.stdout, /# DOCKER ENGINE NOT AVAILABLE: 2 docker tests did not run \(DOCKER_TESTS=required: FAILED\)/)
    t.match(result.stdout, /# \{ total: 4, pass: 1, fail: 1, skip: 2 \}/)
  })
  t.test('an engine that accepts but never answers counts as missing after the probe timeout', async (t) => {
    const silent = createTcpServer(() => {}).listen(0, '127.0.0.1')
    t.teardown(() => silent.close())
    await new Promise((resolve) => silent.once('listening', resolve))
    const { port } = silent.address() as { port: number }
    const started = Date.now()
    const result = await runProbe(['suite'], { DOCKER_HOST: `tcp://127.0.0.1:${port}`, DOCKER_TESTS: '', PROBE_TIMEOUT_MS: '300' })
    t.equal(result.code, 0)
    t.match(result.stdout, /DOCKER ENGINE NOT AVAILABLE: 2 docker tests did not run -- cannot reach the Docker engine at 127\.0\.0\.1:\d+: no answer within 300 ms/)
    t.ok(Date.now() - started < 10_000, 'the probe did not hang')
  })
})

// --- against the engine ------------------------------------------------------------------------

engine.test('the test image: built or taken from ERP_TEST_IMAGE, and up to date', async (t) => {
  const image = await testImage()
  t.equal(image, process.env.ERP_TEST_IMAGE || 'erp-test-image:2')
  const info = await docker.getImage(image).inspect()
  t.same(info.Config.Entrypoint, ['/entrypoint.sh'])
  t.ok(info.Config.ExposedPorts?.[`${TEST_IMAGE_PORT}/tcp`], `exposes ${TEST_IMAGE_PORT}`)
  t.same(info.Config.Cmd, ['odoo'], 'the official image\'s command')
  t.ok(info.Config.Env?.includes('ODOO_RC=/etc/odoo/odoo.conf'), 'where the server reads its configuration, as the official image says')
  t.ok(info.Size < 40_000_000, `small: busybox, psql and socat with their libraries (${info.Size} bytes)`)
  if (!info.Comment.startsWith('erp-test-image content-sha256=')) {
    t.comment(`${image} was not built by ${BUILD_SCRIPT}: not rebuilding it`)
    return
  }
  const again = await runCommand('bash', [BUILD_SCRIPT, image], {})
  t.equal(again.code, 0, 'the build script exits 0')
  if (again.code !== 0) t.comment(again.stderr)
  t.equal(again.stdout, `${image}\n`, 'prints only the tag on stdout')
  t.match(again.stderr, /is up to date/, 'a second build is a no-op')
  t.equal((await docker.getImage(image).inspect()).Id, info.Id, 'same image')
})

engine.test('container lifecycle', async (t) => {
  const image = await testImage()
  const name = `erp-test-${run.id}-lifecycle`
  const labels = { ...run.labels, 'erp.instance': 'acme-prod', 'erp.version': '17.0' }
  const env = ['ERP_INSTANCE=acme-prod', 'ERP_DB_NAME=acme', `PORT=${TEST_IMAGE_PORT}`]
  const portKey = `${TEST_IMAGE_PORT}/tcp`
  const portBindings = { [portKey]: [{ HostIp: '127.0.0.1', HostPort: '' }] } // '' = a random host port
  const binds = [`${hostDir}:/www/data:ro`]
  const memory = 64 * 1024 * 1024
  const nanoCpus = 500_000_000 // half a CPU
  let container: Docker.Container | undefined
  let createdAt = 0
  const theContainer = (): Docker.Container => {
    if (container === undefined) throw new Error('no container: the create step failed')
    return container
  }

  await t.test('create: inspect shows exactly the name, labels, env, published port, read-only bind mount and limits', async (t) => {
    const imageInfo = await docker.getImage(image).inspect()
    createdAt = Date.now()
    container = await docker.createContainer({
      name,
      Image: image,
      Labels: labels,
      Env: env,
      ExposedPorts: { [portKey]: {} },
      HostConfig: { PortBindings: portBindings, Binds: binds, Memory: memory, NanoCpus: nanoCpus }
    })
    const info = await container.inspect()
    t.equal(info.Name, `/${name}`)
    t.equal(info.Config.Image, image)
    t.same(info.Config.Labels, { ...imageInfo.Config.Labels, ...labels }, 'labels: ours (and the image\'s, which has none)')
    t.same([...(info.Config.Env ?? [])].sort(), [...(imageInfo.Config.Env ?? []), ...env].sort(), 'env: ours and the image\'s')
    t.same(info.HostConfig.PortBindings, portBindings)
    t.same(info.HostConfig.Binds, binds)
    t.equal(info.Mounts.length, 1)
    t.match(info.Mounts[0], { Type: 'bind', Source: hostDir, Destination: '/www/data', RW: false, Mode: 'ro' })
    t.equal(info.HostConfig.Memory, memory)
    t.equal(info.HostConfig.NanoCpus, nanoCpus)
    t.equal(info.State.Status, 'created')
    t.equal(info.State.Running, false)
  })

  await t.test('start: HTTP answers on the port published on 127.0.0.1; mount, env and limits hold inside', async (t) => {
    const c = theContainer()
    await c.start()
    const info = await c.inspect()
    t.equal(info.State.Status, 'running')
    const bindings = info.NetworkSettings.Ports[portKey]
    t.equal(bindings?.length, 1, 'published once (on 127.0.0.1 only)')
    t.equal(bindings?.[0]?.HostIp, '127.0.0.1')
    const port = publishedPort(info)
    t.ok(port > 0, `random host port ${port}`)
    const health = await waitForHttp(`http://127.0.0.1:${port}/healthz`, 15_000)
    t.equal(health.body, 'ok\n')
    t.comment(`create -> HTTP answering: ${Date.now() - createdAt} ms (start -> HTTP: ${health.elapsedMs} ms)`)
    const page = await waitForHttp(`http://127.0.0.1:${port}/data/hello.txt`, 2000)
    t.equal(page.body, await readFile(join(hostDir, 'hello.txt'), 'utf8'), 'serves the bind-mounted host file')

    const write = await execIn(c, ['sh', '-c', 'echo x > /www/data/new.txt'])
    t.not(write.exitCode, 0, 'the bind mount is read-only')
    t.match(write.stderr, /Read-only file system/)
    const envInside = await execIn(c, ['env'])
    t.match(envInside.stdout, /^ERP_INSTANCE=acme-prod$/m)
    t.match(envInside.stdout, /^ERP_DB_NAME=acme$/m)
    const mem = await execIn(c, ['sh', '-c', 'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes'])
    t.equal(mem.stdout.trim(), String(memory), 'the memory limit is in the container\'s cgroup')
    const cpu = await execIn(c, ['sh', '-c', 'cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"'])
    t.equal(cpu.stdout.trim(), '50000 100000', 'the CPU quota is in the container\'s cgroup')
  })

  await t.test('stop: SIGTERM ends it cleanly and promptly; state exited', async (t) => {
    const c = theContainer()
    const port = publishedPort(await c.inspect())
    const started = Date.now()
    await c.stop({ t: 10 })
    const took = Date.now() - started
    t.ok(took < 5000, `stopped in ${took} ms, without waiting for the 10 s SIGKILL timeout`)
    const info = await c.inspect()
    t.equal(info.State.Status, 'exited')
    t.equal(info.State.Running, false)
    t.equal(info.State.ExitCode, 0, 'exit 0 on SIGTERM')
    await t.rejects(waitForHttp(`http://127.0.0.1:${port}/healthz`, 300), /did not answer/, 'no longer answers')
  })

  await t.test('restart: running again and answering HTTP', async (t) => {
    const c = theContainer()
    await c.restart({ t: 10 })
    const info = await c.inspect()
    t.equal(info.State.Status, 'running')
    t.equal(info.State.Running, true)
    t.equal(info.RestartCount, 0, 'RestartCount counts restart-policy restarts only')
    const port = publishedPort(info)
    t.comment(`after the restart the random host port is ${port} (a random port may change on every start)`)
    t.equal((await waitForHttp(`http://127.0.0.1:${port}/healthz`, 15_000)).body, 'ok\n')
  })

  await t.test('killed behind our back: inspect shows it not running', async (t) => {
    const c = theContainer()
    const before = await c.inspect()
    const port = publishedPort(before)
    if (await isLocalContainerProcess(before.State.Pid, before.Id)) {
      process.kill(before.State.Pid, 'SIGKILL') // as the OOM killer or an operator would: not through the API
      t.comment(`SIGKILLed the container's PID 1 (host pid ${before.State.Pid}) directly`)
    } else {
      await c.kill({ signal: 'SIGKILL' }) // a remote or rootless engine: its processes are not ours to signal
      t.comment('the engine\'s processes are not visible here: killed through the API instead')
    }
    const info = await waitFor(async () => { const i = await c.inspect(); return i.State.Running ? undefined : i }, 10_000)
    t.equal(info.State.Running, false)
    t.equal(info.State.Status, 'exited')
    t.equal(info.State.ExitCode, 137, '128 + SIGKILL')
    t.equal(info.State.OOMKilled, false)
    await t.rejects(waitForHttp(`http://127.0.0.1:${port}/healthz`, 300), /did not answer/, 'no longer answers')
  })

  await t.test('logs: the start line (once per start) on stdout, httpd\'s request log on stderr', async (t) => {
    const logs = await containerLogs(theContainer())
    const starts = logs.stdout.split('\n').filter((line) => line === `${TEST_IMAGE_START_LINE} ${TEST_IMAGE_PORT}`)
    t.equal(starts.length, 2, 'started twice (start, restart)')
    t.match(logs.stdout, /erp-test-image: TERM received, stopping\nerp-test-image: stopped\n/, 'the stop')
    t.match(logs.stderr, /response:200/, 'httpd logged the requests')
  })

  await t.test('remove: the container is gone', async (t) => {
    const c = theContainer()
    await c.remove({ v: true })
    const gone = await c.inspect().then(() => undefined, (error: { statusCode?: number }) => error)
    t.equal(gone?.statusCode, 404, 'inspect: 404 no such container')
    t.same(await docker.listContainers({ all: true, filters: { name: [name] } }), [])
  })
})

engine.test('cleanupContainers removes every container labelled with the run id, and only those', async (t) => {
  const image = await testImage()
  const other = newTestRun()
  t.teardown(() => cleanupContainers(other.label))
  const create = (suffix: string, labels: Record<string, string>): Promise<Docker.Container> =>
    docker.createContainer({ name: `erp-test-${run.id}-${suffix}`, Image: image, Labels: labels })
  await create('created', run.labels)
  await (await create('running', run.labels)).start()
  const bystander = await create('other-run', other.labels)

  const removed = await cleanupContainers(run.label)
  t.same(removed.sort(), [`erp-test-${run.id}-created`, `erp-test-${run.id}-running`])
  t.same(await docker.listContainers({ all: true, filters: { label: [run.label] } }), [], 'none left with the run label')
  t.equal((await bystander.inspect()).Name, `/erp-test-${run.id}-other-run`, 'another run\'s container is untouched')
  t.same(await cleanupContainers(run.label), [], 'idempotent')
  t.same(await cleanupContainers(other.label), [`erp-test-${run.id}-other-run`])
})

// --- local helpers -------------------------------------------------------------------------

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createTcpServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}

interface CommandResult { code: number | null, stdout: string, stderr: string }

function runCommand (command: string, args: string[], env: Record<string, string>, inherit = true): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: inherit ? { ...process.env, ...env } : env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => { stdout += String(chunk) })
    child.stderr.on('data', (chunk) => { stderr += String(chunk) })
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Runs the fixture as a top-level tap file (not as a child of this tap run). */
function runProbe (args: string[], env: Record<string, string>): Promise<CommandResult> {
  const standalone = Object.fromEntries(Object.entries(process.env)
    .filter(([key]) => !/^(TAP|_TAPJS)/.test(key) && key !== 'NODE_OPTIONS')) as Record<string, string>
  return runCommand(process.execPath, [PROBE, ...args], { ...standalone, ...env }, false)
}

async function waitFor<T> (check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Whether pid is this container's process in OUR pid namespace (so never some other process). */
async function isLocalContainerProcess (pid: number, containerId: string): Promise<boolean> {
  if (pid <= 0 || process.getuid?.() !== 0) return false
  try {
    return (await readFile(`/proc/${pid}/cgroup`, 'utf8')).includes(containerId)
  } catch {
    return false
  }
}
