/**
 * ERP_UPGRADE_COMMANDS' reading (what an operator may write, and why the rest is refused), the
 * command line it makes, and what the service reads from an upgrade command's output (its tail and
 * the modules the ERP names on its ERROR lines).
 */
import fc from 'fast-check'
import t from 'tap'
import { majorOf, parseUpgradeCommands, upgradeRun } from '../../../../plugins/app/upgrades/upgrade-commands.ts'
import { failedModules, LOG_TAIL_LINES, logTail } from '../../../../plugins/app/upgrades/upgrade-output.ts'

const problemOf = (raw: string): string | undefined => {
  const parsed = parseUpgradeCommands(raw)
  return 'problem' in parsed ? parsed.problem : undefined
}

t.test('a valid setting: per target version an image and a command', async (t) => {
  const parsed = parseUpgradeCommands(JSON.stringify({ '17.0': { image: 'registry.example/openupgrade:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init'] } }))
  t.ok('commands' in parsed)
  if (!('commands' in parsed)) return
  t.same([...parsed.commands.keys()], ['17.0'])
  t.same(upgradeRun(parsed.commands.get('17.0')!, { database: 'erp_ab', from: '16.0', target: '17.0' }),
    { image: 'registry.example/openupgrade:17.0', command: ['odoo', '-d', 'erp_ab', '-u', 'all', '--stop-after-init'] })
  t.same(parseUpgradeCommands(undefined), { commands: new Map() }, 'unset: no upgrades')
  t.same(parseUpgradeCommands('  '), { commands: new Map() })
})

t.test('what is refused, with the reason', async (t) => {
  t.equal(problemOf('{'), 'not JSON')
  t.equal(problemOf('[]'), 'a JSON object keyed by target ERP version')
  t.match(problemOf('{"latest": {"image": "odoo", "command": ["odoo"]}}'), /"latest" is not an ERP version/)
  t.match(problemOf('{"17.0": {"command": ["odoo"]}}'), /17\.0: "image"/)
  t.match(problemOf('{"17.0": {"image": "odoo:{version}", "command": []}}'), /non-empty array of strings/)
  t.match(problemOf('{"17.0": {"image": "odoo:{version}", "command": ["odoo", 3]}}'), /non-empty array of strings/)
  t.match(problemOf('{"17.0": {"image": "odoo:{version}", "command": ["odoo", "-d", "{db}"]}}'), /\{db\} is not a placeholder/)
})

t.test('every placeholder is replaced, whatever else the arguments hold', async (t) => {
  const arg = fc.array(fc.constantFrom('{database}', '{from_version}', '{target_version}', 'x', '-', '=', ' '), { maxLength: 6 }).map((parts) => parts.join(''))
  fc.assert(fc.property(fc.array(arg, { minLength: 1, maxLength: 5 }), (command) => {
    const run = upgradeRun({ image: 'erp:{version}', command }, { database: 'erp_db', from: '16.0', target: '17.0' })
    return run.command.length === command.length && run.command.every((a) => !/\{(database|from_version|target_version)\}/.test(a)) && run.image === 'erp:17.0'
  }))
  t.equal(majorOf('17.0'), 17)
  t.equal(majorOf('9.0'), 9)
})

t.test('the failed modules are the names after "module" on ERROR lines, once each, in order', async (t) => {
  const output = [
    '2026-11-29 05:00:00,000 1 INFO db odoo.modules.loading: loading 42 modules...',
    '2026-11-29 05:00:01,000 1 ERROR db odoo.modules.loading: module sale_custom: field "x" does not exist',
    '2026-11-29 05:00:02,000 1 WARNING db odoo.modules.loading: module stock_note: deprecated',
    '2026-11-29 05:00:03,000 1 ERROR db odoo.modules.registry: Failed to load module stock_extra',
    '2026-11-29 05:00:04,000 1 ERROR db odoo.modules.loading: module sale_custom: again',
    '2026-11-29 05:00:05,000 1 ERROR db odoo.sql_db: bad query'
  ].join('\n')
  t.same(failedModules(output), ['sale_custom', 'stock_extra'])
  t.same(failedModules(''), [])
  fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), { maxLength: 8 }), (names) => {
    const text = names.map((name) => `x ERROR db odoo.modules.loading: module ${name}: broken`).join('\n')
    return JSON.stringify(failedModules(text)) === JSON.stringify([...new Set(names)])
  }))
})

t.test('the log tail keeps the last lines', async (t) => {
  const lines = Array.from({ length: LOG_TAIL_LINES + 10 }, (_, i) => `line ${i}`)
  const tail = logTail(`${lines.join('\r\n')}\n\n`)
  t.equal(tail.split('\n').length, LOG_TAIL_LINES)
  t.equal(tail.split('\n').at(-1), `line ${LOG_TAIL_LINES + 9}`)
  t.equal(logTail('one'), 'one')
})
