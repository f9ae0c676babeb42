import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import t, { type Test } from 'tap'
import { checkDependencies, packageOf } from '../../tools/check-dependencies.ts'

const ROOT = resolve(import.meta.dirname, '../..')

t.test('this repository: production imports are dependencies, dependencies are imported, engines covers them', async (t) => {
  const { problems, runtimeImports } = await checkDependencies(ROOT)
  t.same(problems, [])
  t.ok(runtimeImports.get('mcp/access-token.ts')?.has('jose'), 'the scan sees jose in the MCP token check')
  t.ok(runtimeImports.get('database/migrate.ts')?.has('pg'))
  t.notOk(runtimeImports.has('test/auth-server/browser.test.ts'), 'tests are not production files')
  t.ok(runtimeImports.has('mcp/tools/catalog.ts'), 'the MCP tools are')
  t.ok(runtimeImports.get('tools/check-dependencies.ts')?.has('semver'), 'and so are the repository tools')
})

t.test('package names from specifiers', async (t) => {
  t.same(['pg', '@mikro-orm/core/x', 'fastify/types', './a.ts', 'node:fs', 'fs'].map(packageOf), ['pg', '@mikro-orm/core', 'fastify', undefined, undefined, undefined])
})

async function fixture (t: Test, files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'check-deps-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
  return root
}

t.test('each kind of mistake is reported', async (t) => {
  const root = await fixture(t, {
    'package.json': JSON.stringify({
      engines: { node: '>=22.0' },
      dependencies: { used: '1', unused: '1', picky: '1' },
      devDependencies: { devonly: '1', typesonly: '1', 'test-helper': '1' }
    }),
    'package-lock.json': JSON.stringify({
      packages: {
        '': {},
        'node_modules/used': {},
        'node_modules/unused': {},
        'node_modules/picky': {},
        'node_modules/devonly': { dev: true, engines: { node: '>=99' } }
      }
    }),
    'node_modules/picky/package.json': JSON.stringify({ engines: { node: '>=22.19.0' } }),
    'app.ts': "import used from 'used'\nimport { readFile } from 'node:fs/promises'\nimport type { T } from 'typesonly'\nimport { type U } from 'devonly'\nimport './local.ts'\n",
    'lib/lazy.ts': "export async function load () { return import('nowhere/sub') }\nimport picky from 'picky'\n",
    'lib/reexport.ts': "export {\n  thing\n} from '@scope/missing/deep'\n",
    'test/a.test.ts': "import helper from 'test-helper'\n",
    'bench/b.ts': "import x from 'devonly'\n",
    'mcp/tools/tool.ts': "import x from 'devonly'\n",
    'tools/check.ts': "import y from 'devonly'\n",
    'lib/test/fixture.ts': "import z from 'test-helper'\n"
  })
  const { problems } = await checkDependencies(root)
  t.same(problems.sort(), [
    'lib/reexport.ts imports @scope/missing at run time, which is not in package.json: move it to dependencies',
    'app.ts imports devonly at run time, which is only a devDependency: move it to dependencies',
    'mcp/tools/tool.ts imports devonly at run time, which is only a devDependency: move it to dependencies',
    'tools/check.ts imports devonly at run time, which is only a devDependency: move it to dependencies',
    'lib/test/fixture.ts imports test-helper at run time, which is only a devDependency: move it to dependencies',
    'engines.node is ">=22.0" but picky (node_modules/picky) needs node ">=22.19.0"',
    'lib/lazy.ts imports nowhere at run time, which is not in package.json: move it to dependencies',
    'unused is in dependencies but no production file imports it: remove it (or move it to devDependencies)'
  ].sort(), 'a type-only import of a devDependency is fine; `import { type X }` still loads the package; the top-level test/ and bench/ are not production, folders of those names deeper down are, and tools/ is; dev packages\' engines do not count')
})
