import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  ACTIVITY_CATALOGS, ACTIVITY_DESCRIPTIONS, ACTIVITY_TARGET_DESCRIPTIONS, ACTIVITY_TARGET_TYPES, ACTIVITY_TYPES
} from '../../../../plugins/app/activity/activity-types.ts'

/**
 * The type checker holds `activity.record` to the catalog. What it cannot see
 * is checked here: each room's catalog file is assembled (and nothing twice),
 * and the rows written by SQL text (the auth server's INSERT, the test data)
 * carry catalog types and target types.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const ROOMS = join(ROOT, 'plugins/app')
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'data', '.tap', 'coverage', '.scratch'])
const shown = (file: string) => relative(ROOT, file).split(sep).join('/')

async function tsFiles (dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) files.push(...await tsFiles(join(dir, entry.name)))
    else if (entry.isFile() && entry.name.endsWith('.ts')) files.push(join(dir, entry.name))
  }
  return files
}

/** The expressions of a list, split at the commas outside parentheses and quotes. */
function splitTopLevel (list: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let current = ''
  for (const char of list) {
    if (char === '\'') quoted = !quoted
    if (!quoted && char === '(') depth++
    if (!quoted && char === ')') depth--
    if (!quoted && depth === 0 && char === ',') {
      parts.push(current.trim())
      current = ''
    } else {
      current += char
    }
  }
  parts.push(current.trim())
  return parts
}

/**
 * For each `INSERT INTO activities (columns) VALUES (...)` or `... SELECT ...
 * FROM` in a source text: the quoted literals written to each column.
 */
function activityInserts (source: string): Array<Map<string, string[]>> {
  const inserts: Array<Map<string, string[]>> = []
  for (const match of source.matchAll(/INSERT INTO activities\s*\(([^)]*)\)\s*(VALUES\s*\(|SELECT\s)/gi)) {
    const rest = source.slice(match.index + match[0].length)
    let list: string
    if (/^VALUES/i.test(match[2]!)) {
      let depth = 1
      let end = 0
      while (end < rest.length && depth > 0) {
        if (rest[end] === '(') depth++
        if (rest[end] === ')') depth--
        end++
      }
      list = rest.slice(0, end - 1)
    } else {
      list = rest.slice(0, rest.search(/\sFROM\s/i))
    }
    const columns = match[1]!.split(',').map((column) => column.trim())
    const values = splitTopLevel(list)
    inserts.push(new Map(columns.map((column, index) => [column, [...(values[index] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]!)])))
  }
  return inserts
}

t.test('every room catalog file is assembled, each type and target declared by one room only', async (t) => {
  const rooms = (await readdir(ROOMS, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
  const withCatalog: string[] = []
  for (const room of rooms) {
    const files = (await readdir(join(ROOMS, room))).filter((name) => name.endsWith('.activity.ts'))
    t.ok(files.length <= 1, `plugins/app/${room}: one catalog file at most`)
    if (files[0] === undefined) continue
    withCatalog.push(room)
    t.equal(files[0], `${room}.activity.ts`, `plugins/app/${room}: the catalog is named after its room`)
    const module = await import(join(ROOMS, room, files[0])) as Record<string, Record<string, string>>
    const catalog = ACTIVITY_CATALOGS[room as keyof typeof ACTIVITY_CATALOGS] as { types: Record<string, string>, targets: Record<string, string> } | undefined
    t.ok(catalog, `plugins/app/${room}/${files[0]} is in ACTIVITY_CATALOGS`)
    const exported = Object.values(module)
    t.ok(exported.includes(catalog!.types), `${room}: its types are the ones assembled`)
    if (Object.keys(catalog!.targets).length > 0) t.ok(exported.includes(catalog!.targets), `${room}: its targets are the ones assembled`)
  }
  t.same(Object.keys(ACTIVITY_CATALOGS).sort(), withCatalog.sort(), 'ACTIVITY_CATALOGS names exactly the rooms with a catalog file')

  const catalogs = Object.values(ACTIVITY_CATALOGS)
  const types = catalogs.flatMap((catalog) => Object.keys(catalog.types))
  const targets = catalogs.flatMap((catalog) => Object.keys(catalog.targets))
  t.equal(new Set(types).size, types.length, 'no type is declared by two rooms')
  t.equal(new Set(targets).size, targets.length, 'no target type is declared by two rooms')
  t.same([...ACTIVITY_TYPES].sort(), [...types].sort(), 'ACTIVITY_TYPES holds every room\'s types')
  t.same([...ACTIVITY_TARGET_TYPES].sort(), [...targets].sort(), 'ACTIVITY_TARGET_TYPES holds every room\'s targets')
  for (const type of ACTIVITY_TYPES) {
    t.match(type, /^[a-z_]+\.[a-z_]+$/, `${type}: dotted snake_case`)
    t.ok(type.length <= 60, `${type}: fits the type column (60)`)
    t.ok(ACTIVITY_DESCRIPTIONS[type].length > 10, `${type}: has a meaning`)
  }
  for (const target of ACTIVITY_TARGET_TYPES) {
    t.match(target, /^[a-z_]+$/, `${target}: snake_case`)
    t.ok(target.length <= 40, `${target}: fits the target_type column (40)`)
    t.ok(ACTIVITY_TARGET_DESCRIPTIONS[target].length > 10, `${target}: has a meaning`)
  }
})

t.test('activities written by SQL text carry catalog types and target types', async (t) => {
  const types = new Set<string>(ACTIVITY_TYPES)
  const targets = new Set<string>(ACTIVITY_TARGET_TYPES)
  const found: string[] = []
  for (const file of await tsFiles(ROOT)) {
    if (file === fileURLToPath(import.meta.url)) continue
    for (const insert of activityInserts(await readFile(file, 'utf8'))) {
      found.push(shown(file))
      for (const type of insert.get('type') ?? []) t.ok(types.has(type), `${shown(file)}: type '${type}' is in the catalog`)
      for (const target of insert.get('target_type') ?? []) t.ok(targets.has(target), `${shown(file)}: target_type '${target}' is in the catalog`)
    }
  }
  t.ok(found.includes('auth-server/interactions-records.ts'), 'the auth server\'s INSERT is checked')
  t.ok(found.includes('test/support/data.ts'), 'the test data\'s INSERT is checked')
})

t.test('the SQL reader finds the literals of each column', async (t) => {
  const values = activityInserts("x `INSERT INTO activities (tenant_id, type, title, target_type)\n VALUES ($1, 'oauth.grant_made', concat('a', 'b'), 'grant')`")
  t.same(values.map((insert) => [insert.get('type'), insert.get('title'), insert.get('target_type')]), [[['oauth.grant_made'], ['a', 'b'], ['grant']]])
  const selected = activityInserts("INSERT INTO activities (tenant_id, type, title)\n SELECT $1, CASE WHEN g % 2 = 0 THEN 'a.even' ELSE 'a.odd' END, 'T, ' || g FROM generate_series(1, 3) g")
  t.same(selected.map((insert) => [insert.get('type'), insert.get('title')]), [[['a.even', 'a.odd'], ['T, ']]])
})
