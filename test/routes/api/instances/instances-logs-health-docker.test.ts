/**
 * Docker: the ERP's health-check access lines (Odoo writes one to stderr per probe) are left out
 * of GET /logs and of the live stream; the ERP's other lines, a failing check included, are kept,
 * and `tail` counts the lines shown. A real container writes the lines, read through the real engine.
 */
import t from 'tap'
import type Docker from 'dockerode'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly, testImage } from '../../../support/docker/engine.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { uniqueSubdomain } from '../../../support/instances.ts'
import { accessLine, eventLine, healthLine, quietErpLog } from '../../../support/odoo-log-lines.ts'
import { openSse } from '../../../support/sse.ts'
import { containerName } from '../../../../provisioning/docker/names.ts'

const docker = await requireDockerOrSkipLoudly(t)

/** Writes lines to the container's stderr (its PID 1's), as the ERP does. */
async function writeToStderr (container: Docker.Container, lines: string[]): Promise<void> {
  const exec = await container.exec({ Cmd: ['/bin/sh', '-c', 'printf \'%s\\n\' "$@" >/proc/1/fd/2', 'sh', ...lines], AttachStdout: true, AttachStderr: true })
  const stream = await exec.start({})
  await new Promise((resolve) => { stream.on('end', resolve); stream.on('close', resolve); stream.resume() })
}

docker.test('the health check\'s lines are left out of /logs and the live stream; the rest is kept, the tail counted without them', async (t) => {
  const { app } = await build(t, { env: { INSTANCE_BACKENDS: 'docker', RECONCILE_SECONDS: 3600 } })
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('hlog')
  const id = await recordInstance(app, admin.user.tenant_id, { subdomain, state: 'running' })

  const quiet = quietErpLog(10)
  const failing = healthLine(59, 500)
  const login = accessLine(58, '/web/login')
  const written = [...quiet.lines, failing, login, healthLine(60)]
  const container = await docker.docker.createContainer({
    name: containerName(subdomain), Image: await testImage(),
    Entrypoint: ['/bin/sh', '-c'], Cmd: ['printf \'%s\\n\' "$@" >&2; exec sleep 3600', 'sh', ...written]
  })
  t.teardown(() => container.remove({ force: true }))
  await container.start()

  const logs = async (query = '') => {
    const response = await app.inject({ method: 'GET', url: `/api/instances/${id}/logs${query}`, headers: bearer(admin.token) })
    t.equal(response.statusCode, 200, response.body)
    return response.json().lines as Array<{ line: string, stream: string }>
  }
  let all: Array<{ line: string, stream: string }> = []
  for (let i = 0; i < 100 && all.length < 12; i++) { all = await logs(); await new Promise((resolve) => setTimeout(resolve, 50)) }
  t.same(all.map((l) => l.line), [...quiet.events, failing, login], 'the ERP\'s lines, a failing check and another page\'s access line; no passed check')
  t.ok(all.every((l) => l.stream === 'stderr'), 'as written, on stderr')
  t.same((await logs('?tail=3')).map((l) => l.line), [quiet.events[9], failing, login], 'the last three shown lines, though the engine\'s last three are not them')
  t.same((await logs('?tail=11')).map((l) => l.line), [...quiet.events.slice(1), failing, login], 'tail=11: eleven lines')
  t.same((await logs('?tail=2&stream=stderr')).map((l) => l.line), [failing, login], 'one stream, the same')

  const token = (await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream-token`, headers: bearer(admin.token) })).json()
  const stream = await openSse(token.stream_url.replace('http://portal.test', origin))
  t.teardown(() => stream.close())
  // The follow starts when the stream opens: write until a first line arrives, then the test's own.
  const line = (e: { data: string }) => (JSON.parse(e.data) as { line: string }).line
  for (let n = 0; ; n++) {
    await writeToStderr(container, [eventLine(`ready ${n}`)])
    if (await stream.waitFor((e) => e.event === 'message', 300).then(() => true, () => false)) break
    if (n > 30) throw new Error('the live stream never started')
  }
  const start = stream.events.length
  await writeToStderr(container, [healthLine(1), eventLine('live 1'), healthLine(2), healthLine(3, 503), eventLine('live 2'), healthLine(4)])
  await writeToStderr(container, [eventLine('live 3')])
  await stream.waitFor((e) => e.event === 'message' && line(e) === eventLine('live 3'), 5000, start)
  t.same(stream.events.slice(start).filter((e) => e.event === 'message').map(line),
    [eventLine('live 1'), healthLine(3, 503), eventLine('live 2'), eventLine('live 3')], 'live: no passed check, the rest in order')
})
