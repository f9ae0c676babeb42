/**
 * `node server.ts` with invalid settings: each is reported on one line before
 * anything starts (server-config-start.test.ts: the database is not touched, and
 * a valid but notable setting is a warning).
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import t from 'tap'
import { freePort, startServer } from './support/process.ts'

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve(true) })
  socket.once('error', () => resolve(false))
})

/** Starts `node server.ts` with `env` and, until it exits, watches whether anything accepts connections on `ports`. */
async function startAndWatch (env: Record<string, string>, ports: number[]): Promise<{ code: number | null, output: string, listened: boolean }> {
  const running = startServer(env)
  let exited = false
  let listened = false
  const code = running.exited.then((c) => { exited = true; return c })
  while (!exited) {
    for (const port of ports) if (await answers(port)) listened = true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { code: await code, output: running.output(), listened }
}

// Real starts of the service: on a busy machine they take longer than tap's default per file.
t.setTimeout(300_000)

t.test('invalid settings stop the start before anything listens: one line each, exit 1, no stack trace', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'erp-portal-bad-config-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const [port, pgPort, authPort] = [await freePort(), await freePort(), await freePort()]
  const base = { PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), AUTH_PORT: String(authPort), AUTH_SERVER_PROCESS: 'true' }
  const cases: Array<[string, Record<string, string>, RegExp[]]> = [
    ['a port that is not a number', { PORT: 'not-a-port' },
      [/^Invalid configuration: PORT="not-a-port"; allowed: an integer from 1 to 65535; example: PORT=3000$/]],
    ['an image reference that cannot be', { ERP_IMAGE: 'my image:{version}' },
      [/^Invalid configuration: ERP_IMAGE="my image:\{version\}" \("my image:16.0" is not an image reference\); allowed: .+; example: ERP_IMAGE=\S+$/]],
    ['a short secret, not echoed', { JWT_SECRET: 'sekrit-but-short' },
      [/^Invalid configuration: JWT_SECRET=\(hidden, 16 characters\); allowed: at least 32 characters.*; example: JWT_SECRET=/]],
    ['a kubeconfig that is not there', { INSTANCE_BACKENDS: 'kubernetes', KUBECONFIG: join(root, 'no-such-kubeconfig') },
      [/^Invalid configuration: KUBECONFIG="[^"]+no-such-kubeconfig" \(ENOENT: no such file or directory.*\); allowed: .+; example: KUBECONFIG=\S+$/]],
    ['two settings at once, and ports that clash', { AUTH_PORT: String(port), PAYMENT_WEBHOOK_SECRETS: 'sandbox:webhook-pw' },
      [/^Invalid configuration: AUTH_PORT="\d+" \(the auth server started by the portal cannot share PORT\); allowed: a port other than PORT; example: AUTH_PORT=\d+$/,
        /^Invalid configuration: PAYMENT_WEBHOOK_SECRETS=\(hidden, 18 characters\) \(the secret of sandbox must be at least 16 characters\); allowed: .+$/]]
  ]
  const dataDirOf = (what: string) => join(root, what.replaceAll(' ', '-'))
  // All at once: none of them may listen, so they cannot get in each other's way.
  const runs = await Promise.all(cases.map(([what, bad]) => startAndWatch({ ...base, DATA_DIR: dataDirOf(what), ...bad }, [port, pgPort, authPort])))
  for (const [i, [what, , lines]] of cases.entries()) {
    const run = runs[i]!
    const dataDir = dataDirOf(what)
    t.equal(run.code, 1, `${what}: exit status 1`)
    const printed = run.output.trim().split('\n')
    t.equal(printed.length, lines.length, `${what}: one line per invalid setting`)
    lines.forEach((line, i) => t.match(printed[i], line, `${what}: line ${i + 1}`))
    t.notMatch(run.output, /^\s+at /m, `${what}: no stack trace`)
    t.notMatch(run.output, /sekrit|webhook-pw/, `${what}: no secret echoed`)
    t.equal(run.listened, false, `${what}: nothing listened on PORT, AUTH_PORT or EMBEDDED_PG_PORT`)
    t.equal(existsSync(dataDir), false, `${what}: DATA_DIR untouched (no embedded PostgreSQL, no generated secret)`)
  }
})
