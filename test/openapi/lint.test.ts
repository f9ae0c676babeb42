import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { build } from '../support/build.ts'

const run = promisify(execFile)
const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
const REDOCLY = root('node_modules/@redocly/cli/bin/cli.js')
const NO_NETWORK = root('test/support/no-network.ts')
/** The linter runs as a user runs it (without the test runner's hooks), offline, telling nobody. */
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NODE_OPTIONS: `--import=${NO_NETWORK}`
}

interface LintReport { totals: { errors: number, warnings: number }, problems: Array<{ ruleId: string, message: string, location: Array<{ pointer?: string }> }> }

async function lint (file: string): Promise<{ report: LintReport, stderr: string }> {
  const { stdout, stderr } = await run(process.execPath, [REDOCLY, 'lint', file, '--config', root('redocly.yaml'), '--format', 'json'], { env, cwd: root('.') })
    .catch((error: { stdout: string, stderr: string }) => error)
  return { report: JSON.parse(stdout) as LintReport, stderr }
}

t.test('the OpenAPI document passes Redocly\'s linter (redocly.yaml) with no error and no warning, offline', async (t) => {
  // METRICS_TOKEN: GET /metrics (and its security scheme) exist, so the whole document is linted.
  const { app } = await build(t, { env: { METRICS_TOKEN: 'metrics-token-for-the-lint-test-0001' } })
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, unknown> }
  t.ok(doc.paths['/metrics'], 'the metrics route is in it')
  const dir = await mkdtemp(join(tmpdir(), 'portal-openapi-lint-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'openapi.json')
  await writeFile(file, JSON.stringify(doc))

  const { report, stderr } = await lint(file)
  const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`)
  t.same(problems, [], 'no problem (to accept a warning, turn its rule off in redocly.yaml with the reason)')
  t.equal(report.totals.errors, 0)
  t.equal(report.totals.warnings, 0)
  t.notMatch(stderr, /NETWORK ATTEMPT/, 'the linter fetched nothing')
})

t.test('the linter finds what it is there for, and the network guard sees a connection', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portal-openapi-lint-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'broken.json')
  await writeFile(file, JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'x', version: '1', license: { name: 'x', identifier: 'MIT' } },
    servers: [{ url: 'http://portal.test' }],
    tags: [{ name: 'instances', description: 'x' }],
    paths: { '/api/things': { get: { operationId: 'listThings', summary: 'x', tags: ['undeclared'], security: [{ nowhere: [] }], responses: { 200: { description: 'x' } } } } }
  }))
  const { report } = await lint(file)
  const rules = new Set(report.problems.map((p) => p.ruleId))
  t.ok(rules.has('security-defined'), 'an undeclared security scheme')
  t.ok(rules.has('operation-tag-defined'), 'an undeclared tag')

  const probe = await run(process.execPath, ['-e', 'fetch("http://192.0.2.1/").catch(() => {})'], { env }).catch((error: { stderr: string }) => error)
  t.match(probe.stderr, /NETWORK ATTEMPT/, 'a fetch is seen')
})
