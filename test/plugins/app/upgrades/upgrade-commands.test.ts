/**
 * ERP_UPGRADE_COMMANDS' reading (what an operator may write, and why the rest is refused), the
 * command line it makes, and what the service reads from an upgrade command's output (its tail and
 * the modules the ERP names on its ERROR lines).
 */
import fc from 'fast-check'
import t from 'tap'
import { majorOf, parseUpgradeCommands, upgradeRun } from '../../../../plugins/app/upgrades/upgrade-commands.ts'
import { failedModules, LOG_TAIL_LINES, logTail, modulesLeftBehind } from '../../../../plugins/app/upgrades/upgrade-output.ts'

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

// Lines as Odoo 17.0 writes them (seen on the real server: a view with an unknown field, a module whose Python does not import, an addon missing from the path).
t.test('the failed modules, as Odoo 17 reports them: the module being loaded when the registry failed, one that did not import, those left in an inconsistent state', async (t) => {
  const registryFailed = [
    '2026-11-29 05:00:00,000 1 INFO verify1 odoo.modules.loading: Loading module base (1/24)',
    '2026-11-29 05:00:01,000 1 INFO verify1 odoo.modules.loading: Loading module broken_mod (2/24)',
    '2026-11-29 05:00:01,000 1 INFO verify1 odoo.modules.loading: loading broken_mod/views/views.xml',
    '2026-11-29 05:00:01,000 1 WARNING verify1 odoo.modules.loading: Transient module states were reset',
    '2026-11-29 05:00:01,000 1 ERROR verify1 odoo.modules.registry: Failed to load registry',
    'Traceback (most recent call last):',
    'odoo.tools.convert.ParseError: while parsing /mnt/extra-addons/broken_mod/views/views.xml:2',
    '2026-11-29 05:00:02,000 1 CRITICAL verify1 odoo.service.server: Failed to initialize database `verify1`.'
  ].join('\n')
  t.same(failedModules(registryFailed), ['broken_mod'])
  t.same(modulesLeftBehind(registryFailed), [], 'a hard failure exits non-zero: nothing to add')
  t.same(failedModules("2026-11-29 05:00:01,000 1 CRITICAL verify1 odoo.modules.module: Couldn't load module import_fails\n" +
    '2026-11-29 05:00:01,000 1 ERROR verify1 odoo.modules.registry: Failed to load registry'), ['import_fails'])
  const skipped = '2026-11-29 05:00:01,000 1 WARNING verify1 odoo.modules.graph: module gone_mod: not installable, skipped\n' +
    "2026-11-29 05:00:02,000 1 ERROR verify1 odoo.modules.loading: Some modules have inconsistent states, some dependencies may be missing: ['gone_mod', 'other_mod']"
  t.same(failedModules(skipped), ['gone_mod', 'other_mod'])
  t.same(modulesLeftBehind(skipped), ['gone_mod', 'other_mod'], 'exit 0, yet not a success')
  t.same(failedModules('2026-11-29 05:00:00,000 1 INFO verify1 odoo.modules.loading: 24 modules loaded in 7.53s'), [])
  t.same(failedModules(''), [])
  fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/), { minLength: 1, maxLength: 8 }), (names) => {
    // Whatever loaded before, the registry failure names the last module loaded.
    const text = [...names.map((name, i) => `x INFO db odoo.modules.loading: Loading module ${name} (${i + 1}/9)`), 'x ERROR db odoo.modules.registry: Failed to load registry'].join('\n')
    return JSON.stringify(failedModules(text)) === JSON.stringify([names.at(-1)])
  }))
})

t.test('the log tail keeps the last lines', async (t) => {
  const lines = Array.from({ length: LOG_TAIL_LINES + 10 }, (_, i) => `line ${i}`)
  const tail = logTail(`${lines.join('\r\n')}\n\n`)
  t.equal(tail.split('\n').length, LOG_TAIL_LINES)
  t.equal(tail.split('\n').at(-1), `line ${LOG_TAIL_LINES + 9}`)
  t.equal(logTail('one'), 'one')
})
