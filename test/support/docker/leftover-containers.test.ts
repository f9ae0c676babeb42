/**
 * The runner's sweep of containers left by killed test processes (leftover-containers.ts): which
 * process a container names, and, on the real engine, that only a gone process's containers (and
 * an instance's data volume) are removed.
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import t from 'tap'
import { uniqueSubdomain } from '../instances.ts'
import { newTestRun, requireDockerOrSkipLoudly, testImage } from './engine.ts'
import { creatorPid, removeLeftoverContainers } from './leftover-containers.ts'

t.test('the creator pid is read from the run label and from a test subdomain, nothing else', async (t) => {
  t.equal(creatorPid(newTestRun().labels), process.pid)
  t.equal(creatorPid({ 'erp.subdomain': uniqueSubdomain('par') }), process.pid)
  fc.assert(fc.property(fc.integer({ min: 1, max: 4_194_304 }), fc.stringMatching(/^[a-z]{1,8}$/), (pid, prefix) => {
    const subdomain = `${prefix}-${pid.toString(36)}-${'0123abcd'}`
    return creatorPid({ 'erp.subdomain': subdomain }) === pid && creatorPid({ 'erp.test-run': `run-${pid}-a1b2c3` }) === pid
  }))
  t.equal(creatorPid({ 'erp.subdomain': 'acme' }), undefined, 'a customer-style subdomain names no process')
  t.equal(creatorPid({ 'erp.subdomain': 'shop-zzzzzz-0123abcd' }), undefined, 'beyond any pid')
  t.equal(creatorPid({ 'erp.managed': 'true' }), undefined)
})

const engine = await requireDockerOrSkipLoudly(t)

engine.test('a gone process\'s containers and data volume are removed; a live one\'s stay', async (t) => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const gonePid = Number(gone.stdout)
  const image = await testImage()
  const goneSubdomain = `left-${gonePid.toString(36)}-0badcafe`
  const liveSubdomain = uniqueSubdomain('kept')
  const goneRun = { 'erp.test-run': `sweep-${gonePid}-abcdef` }
  await engine.docker.createVolume({ Name: `erp-${goneSubdomain}-data` })
  const made = await Promise.all([
    engine.docker.createContainer({ Image: image, name: `erp-${goneSubdomain}`, Labels: { 'erp.subdomain': goneSubdomain } }),
    engine.docker.createContainer({ Image: image, Labels: goneRun }),
    engine.docker.createContainer({ Image: image, name: `erp-${liveSubdomain}`, Labels: { 'erp.subdomain': liveSubdomain } })
  ])
  t.teardown(() => Promise.all(made.map((c) => c.remove({ force: true }).catch(() => {}))))

  // The runner's own sweep may get there first: what counts is what is left.
  await removeLeftoverContainers(engine.docker)
  t.ok(await made[0]!.inspect().then(() => false, () => true), 'the instance container of a gone process')
  t.ok(await made[1]!.inspect().then(() => false, () => true), 'the labelled container of a gone process')
  t.ok(await engine.docker.getVolume(`erp-${goneSubdomain}-data`).inspect().then(() => false, () => true), 'its data volume')
  t.equal((await made[2]!.inspect()).Name, `/erp-${liveSubdomain}`, 'the live process\'s container stays')
})
