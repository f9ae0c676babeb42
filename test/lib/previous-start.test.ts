import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { waitForPreviousStop } from '../../lib/previous-start.ts'

t.test('a start waits, saying so once, while the previous process of its DATA_DIR is still stopping', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'previous-start-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const stopping = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)'])
  const exited = new Promise((resolve) => stopping.once('exit', resolve))
  await writeFile(join(dataDir, 'stopping.pid'), `${stopping.pid}\n`)

  const said: string[] = []
  const began = Date.now()
  t.equal(await waitForPreviousStop(dataDir, (line) => said.push(line)), true)
  t.ok(Date.now() - began >= 1000, 'it waited for the process to end')
  await exited
  t.same(said, [`The previous start of this service (pid ${stopping.pid}) is still stopping; waiting for it to finish.`])
})

t.test('a mark left by a process that is gone is cleared at once, silently', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'previous-start-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const gone = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => gone.once('exit', resolve))
  await writeFile(join(dataDir, 'stopping.pid'), `${gone.pid}\n`)
  const said: string[] = []
  t.equal(await waitForPreviousStop(dataDir, (line) => said.push(line)), true)
  t.same(said, [])
  t.notOk(existsSync(join(dataDir, 'stopping.pid')))
  t.equal(await waitForPreviousStop(join(dataDir, 'none'), (line) => said.push(line)), true, 'no mark: nothing to wait for')
})

t.test('still there after the bound: false, for a one-line refusal', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'previous-start-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const stuck = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'])
  t.teardown(() => { stuck.kill('SIGKILL') })
  await writeFile(join(dataDir, 'stopping.pid'), `${stuck.pid}\n`)
  t.equal(await waitForPreviousStop(dataDir, () => {}, 300), false)
})
