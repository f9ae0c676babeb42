/**
 * Ctrl-C in the terminal that runs `npm start`: the terminal signals the whole
 * foreground process group. The service stops its workers, the authorization
 * server and the embedded PostgreSQL itself, in that order, within seconds,
 * exit 0, no error lines; a start right after waits for the old one to finish.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import t from 'tap'
import { freePort, startServer, waitForReady, type Running } from './support/process.ts'

t.setTimeout(300_000)

/** `node server.ts` as a terminal runs it: the leader of its own process group. */
const startInGroup = (env: Record<string, string>): Running => startServer(env, 'server.ts', { group: true })

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve(true) })
  socket.once('error', () => resolve(false))
})

/** Lines that would alarm whoever pressed Ctrl-C: pino errors and fatals, stack traces, PostgreSQL shutting down under us, forced exits. */
const ALARMING = /"level":(50|60)|^\s+at |shutting down after an error|database system is shutting down|killed by timeout|Error:/m

async function interrupt (running: Running): Promise<{ code: number | null, ms: number }> {
  const began = Date.now()
  process.kill(-running.child.pid!, 'SIGINT') // the whole group, as the terminal does
  const code = await running.exited
  return { code, ms: Date.now() - began }
}

t.test('Ctrl-C to the whole group: clean exit 0 within seconds; a start during the drain waits for it', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-ctrl-c-'))
  await chmod(dataDir, 0o755)
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [port, pgPort, authPort] = [await freePort(), await freePort(), await freePort()]
  const env = { PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), AUTH_SERVER_PROCESS: 'true', AUTH_PORT: String(authPort) }
  const kill = (running: Running) => () => { try { process.kill(-running.child.pid!, 'SIGKILL') } catch {} }

  const first = startInGroup(env)
  t.teardown(kill(first))
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, first, 120_000)
  await waitForAuthServer(first)
  const postmaster = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
  t.not(await processGroup(postmaster), first.child.pid, 'the embedded PostgreSQL is outside the group the terminal signals')

  const stopped = await interrupt(first)
  t.equal(stopped.code, 0, 'exit 0')
  t.ok(stopped.ms < 8000, `stopped within a few seconds (${stopped.ms} ms)`)
  t.notMatch(first.output(), ALARMING, 'no error lines')
  t.equal(await answers(pgPort), false, 'the embedded PostgreSQL stopped with it')
  t.equal(await answers(authPort), false, 'and the authorization server')

  const second = startInGroup(env)
  t.teardown(kill(second))
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, second, 120_000)
  await waitForAuthServer(second)
  // Ctrl-C, and at once the same command again, while the first is still draining.
  const third = startInGroup(env)
  t.teardown(kill(third))
  const secondStopped = await interrupt(second)
  t.equal(secondStopped.code, 0)
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, third, 120_000)
  t.notMatch(third.output(), ALARMING, 'the start during the drain did not fail')
  const waiting = third.output().split('\n').filter((line) => line.includes('still stopping'))
  t.ok(waiting.length <= 1, 'it says at most one line about the previous start')
  t.equal((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, 200, 'and it serves, on its own database')
  const last = await interrupt(third)
  t.equal(last.code, 0)
  t.notMatch(third.output(), ALARMING)
})

t.test('a start while the previous one drains waits for it, saying so in one line, then serves on its own database', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-drain-'))
  await chmod(dataDir, 0o755)
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [port, pgPort] = [await freePort(), await freePort()]
  // SIGTERM with a drain delay (what a process manager sends): the old process keeps serving for 15 s, long enough to start again meanwhile, even on a loaded machine where a start takes seconds to load.
  const env = { PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), AUTH_SERVER_PROCESS: 'false', SHUTDOWN_DELAY_SECONDS: '15' }
  const old = startInGroup(env)
  t.teardown(() => { try { process.kill(-old.child.pid!, 'SIGKILL') } catch {} })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, old, 120_000)
  process.kill(old.child.pid!, 'SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 300))
  const next = startInGroup(env)
  t.teardown(() => { try { process.kill(-next.child.pid!, 'SIGKILL') } catch {} })
  t.equal(await old.exited, 0, 'the old one drained and exited 0')
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, next, 120_000)
  const waiting = next.output().split('\n').filter((line) => line.includes('still stopping'))
  t.same(waiting, [`The previous start of this service (pid ${old.child.pid}) is still stopping; waiting for it to finish.`], 'one line')
  t.notMatch(next.output(), ALARMING)
  const stopped = await interrupt(next)
  t.equal(stopped.code, 0)
})

async function waitForAuthServer (running: Running): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!/Auth server:\s+listening/.test(running.output())) {
    if (Date.now() > deadline) throw new Error(`the auth server did not start:\n${running.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The process group of `pid` (Linux: field 5 of /proc/<pid>/stat, after the parenthesised name). */
async function processGroup (pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}
