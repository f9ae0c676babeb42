import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from '../support/build.ts'

/**
 * Every file under routes/ serves something. app.ts autoloads routes/, but autoload loads only the
 * index.ts of a folder that has one (the index registers its siblings itself) and skips the names
 * app.ts's NOT_PLUGINS matches (`.service.ts`, `.entity.ts`, ...). A route file added beside an
 * index and never registered by it, or named like a service, would serve nothing, silently.
 *
 * - A route plugin (a file with a default export) declares at least one route of the built app
 *   (it is on the call stack of the route's declaration: `app.routeTable`, lib/route-table.ts),
 *   or imports route plugins that do and only registers them (routes/api/oauth/index.ts).
 * - Any other file is a helper, and a route file beside it or above it imports it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** What makes a file a route plugin: autoload and `fastify.register` take its default export. */
const DEFAULT_EXPORT = /^export default /m
const RELATIVE_IMPORT = /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm

/** Every .ts file under routes/, hidden folders (.well-known) included, with its source. */
async function routeSources (): Promise<Map<string, string>> {
  const sources = new Map<string, string>()
  for (const entry of await readdir(`${ROOT}routes`, { recursive: true })) {
    const file = posix.join('routes', entry.split('\\').join('/'))
    if (file.endsWith('.ts') && !file.endsWith('.d.ts')) sources.set(file, await readFile(`${ROOT}${file}`, 'utf8'))
  }
  return sources
}

/** Why each file under routes/ serves nothing; empty when every one does. */
export function unservedRouteFiles (sources: Map<string, string>, declaring: Set<string>): string[] {
  const imports = new Map([...sources].map(([file, source]) => [file, [...source.matchAll(RELATIVE_IMPORT)].map((match) => posix.join(posix.dirname(file), match[1]!))]))
  const imported = new Set([...imports.values()].flat())
  // A plugin that registers served plugins is served too (its frame is gone when they run).
  const served = new Set(declaring)
  for (let grown = true; grown;) {
    grown = false
    for (const [file, targets] of imports) {
      if (served.has(file) || !targets.some((target) => served.has(target))) continue
      served.add(file)
      grown = true
    }
  }
  const problems: string[] = []
  for (const [file, source] of sources) {
    if (DEFAULT_EXPORT.test(source)) {
      if (!served.has(file)) problems.push(`${file} is a route plugin that declares no route: autoload skips it (a folder with an index.ts loads only the index; NOT_PLUGINS names are skipped), so register it from the folder's index.ts`)
    } else if (!imported.has(file)) {
      problems.push(`${file} has no default export (not a route plugin) and no route file imports it`)
    }
  }
  return problems
}

t.test('every route file under routes/ declares routes, or is a helper a route file imports', async (t) => {
  const { app } = await build(t, { env: { METRICS_TOKEN: 'metrics-token-that-is-long-enough-0123456789' } })
  const declaring = new Set(app.routeTable.flatMap((route) => route.declaredIn.filter((file) => file.startsWith('routes/'))))
  const sources = await routeSources()
  t.ok(sources.size > 30, `found ${sources.size} files under routes/`)
  t.ok(sources.has('routes/.well-known/oauth-protected-resource.ts'), 'hidden folders are walked')
  t.same(unservedRouteFiles(sources, declaring), [])
})

t.test('the check names a route file nobody registers and a helper nobody imports', async (t) => {
  const sources = new Map([
    ['routes/api/instances/index.ts', "import logs from './logs.ts'\nexport default async () => {}"],
    ['routes/api/oauth/index.ts', "import grants from './grants.ts'\nexport default async () => {}"],
    ['routes/api/oauth/grants.ts', 'export default async () => {}'],
    ['routes/api/instances/logs.ts', 'export default async () => {}'],
    ['routes/api/instances/snapshots.ts', 'export default async () => {}'],
    ['routes/api/tickets/index.ts', "import { trimBodyStrings } from './trim-body.ts'\nexport default async () => {}"],
    ['routes/api/tickets/trim-body.ts', 'export async function trimBodyStrings () {}'],
    ['routes/api/tickets/orphan.ts', 'export const unused = 1']
  ])
  const declaring = new Set(['routes/api/instances/index.ts', 'routes/api/instances/logs.ts', 'routes/api/oauth/grants.ts', 'routes/api/tickets/index.ts'])
  const problems = unservedRouteFiles(sources, declaring)
  t.equal(problems.length, 2, problems.join('\n'))
  t.match(problems[0], /^routes\/api\/instances\/snapshots\.ts is a route plugin that declares no route/)
  t.match(problems[1], /^routes\/api\/tickets\/orphan\.ts has no default export/)
})
