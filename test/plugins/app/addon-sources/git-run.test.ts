/**
 * How git is run: with a curated environment (the service's secrets never reach git or the
 * programs it starts, the trust settings do), and a stop kills git's whole process group.
 * A shell alias (`!…`) stands in for git's helpers: git starts it as its own child, with the
 * environment git got.
 */
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gitEnvironment, runGit } from '../../../../plugins/app/addon-sources/git-run.ts'

const signal = () => AbortSignal.timeout(20_000)

t.test('the service\'s secrets do not reach git\'s children; the CA and proxy settings do', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => {
    for (const name of ['JWT_SECRET', 'DATABASE_URL', 'GIT_SSL_CAINFO', 'https_proxy', 'NO_PROXY']) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  })
  Object.assign(process.env, { JWT_SECRET: 'jwt-secret-do-not-leak', DATABASE_URL: 'postgres://u:db-password@h/db', GIT_SSL_CAINFO: '/etc/corp-ca.pem', https_proxy: 'http://proxy.internal:3128', NO_PROXY: '.internal' })
  const dumped = await runGit({ args: ['-c', 'alias.dumpenv=!env', 'dumpenv'], env: { GIT_SSH_COMMAND: 'ssh -F /dev/null' }, signal: signal() })
  t.notMatch(dumped, /jwt-secret-do-not-leak/)
  t.notMatch(dumped, /db-password/)
  t.notMatch(dumped, /^JWT_SECRET=/m)
  t.match(dumped, /^GIT_SSL_CAINFO=\/etc\/corp-ca\.pem$/m, 'the CA file for git')
  t.match(dumped, /^https_proxy=http:\/\/proxy\.internal:3128$/m)
  t.match(dumped, /^NO_PROXY=\.internal$/m)
  t.match(dumped, /^GIT_SSH_COMMAND=ssh -F \/dev\/null$/m, 'what the caller adds')
  t.match(dumped, /^GIT_TERMINAL_PROMPT=0$/m, 'never prompts')
  t.match(dumped, /^PATH=/m)
})

t.test('gitEnvironment passes only the listed names', async (t) => {
  t.same(gitEnvironment({ A: '1' }, { PATH: '/bin', SECRET: 's', SSL_CERT_DIR: '/certs', HTTP_PROXY: 'p' }),
    { PATH: '/bin', SSL_CERT_DIR: '/certs', HTTP_PROXY: 'p', A: '1', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' })
})

t.test('a stopped git takes its children with it (its own process group is killed)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'git-run-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const pidFile = join(dir, 'pid')
  const stop = new AbortController()
  const running = runGit({ args: ['-c', `alias.hang=!sleep 300 & echo $! > ${pidFile}; wait`, 'hang'], env: {}, signal: stop.signal })
  let pid = 0
  for (let i = 0; i < 200 && pid === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    pid = Number(readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).trim() || 0)
  }
  t.ok(pid > 0, 'the grandchild started')
  stop.abort()
  await t.rejects(running, { message: 'timed out' })
  let alive = true
  for (let i = 0; i < 100 && alive; i++) {
    try {
      process.kill(pid, 0)
      await new Promise((resolve) => setTimeout(resolve, 20))
    } catch {
      alive = false
    }
  }
  t.notOk(alive, 'the grandchild (a helper git started) is gone too')
})
