import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { build } from '../support/build.ts'

const run = promisify(execFile)
const modules = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url))
/** The project's TypeScript compiler (its entry script: the extensionless bin does not load under the test runner). */
const TSC = modules('typescript/lib/tsc.js')
/** The tools run on this Node, as a user runs them: without the test runner's process hooks, which its environment carries. */
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

/** A portal client as its author would write it: calls named by operationId, grouped by tag. */
const TYPED_CALL = `
import { Api } from './portal-api.ts'

const api = new Api<string>({
  baseUrl: 'http://localhost:3000',
  securityWorker: (token) => token === null ? {} : { headers: { Authorization: \`Bearer \${token}\` } }
})
const session = await api.auth.logIn({ login: 'admin@example.com', password: 'a long password' })
api.setSecurityData(session.data.token)
const list = await api.instances.listInstances({ secure: true })
const first = list.data.instances[0]
if (first !== undefined) {
  const one = await api.instances.getInstance(first.id, { secure: true })
  const state: string = one.data.instance.state
  const subdomain: string = one.data.instance.subdomain
  console.log(state, subdomain)
}
`

/** Each must fail type-checking: the generated types know the API. */
const WRONG_CALLS: Record<string, string> = {
  'wrong-argument.ts': 'await api.instances.getInstance({ id: 1 })',
  'unknown-field.ts': 'const list = await api.instances.listInstances()\nconsole.log(list.data.instances[0]?.no_such_field)',
  'wrong-body.ts': "await api.tickets.createTicket({ subject: 'Help', description: 'Text', priority: 'whenever' })",
  'unknown-operation.ts': 'await api.instances.renameInstance(1)'
}

t.test('a typed TypeScript client generated from /api/openapi.json type-checks typed calls and rejects wrong ones', async (t) => {
  const { app } = await build(t)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const dir = await mkdtemp(join(tmpdir(), 'portal-client-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))

  // The command a client author runs (README), against the running app.
  await run(process.execPath, [
    modules('.bin/swagger-typescript-api'), 'generate', '--path', `${address}/api/openapi.json`, '--output', dir, '--name', 'portal-api.ts', '--module-name-first-tag', '--silent'
  ], { env })
  const client = await readFile(join(dir, 'portal-api.ts'), 'utf8')
  t.match(client, /getInstance: \(id: /, 'the operationIds name the calls')

  await writeFile(join(dir, 'call.ts'), TYPED_CALL)
  for (const [file, call] of Object.entries(WRONG_CALLS)) {
    await writeFile(join(dir, file), `import { Api } from './portal-api.ts'\nconst api = new Api()\n${call}\n`)
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'es2024',
      module: 'esnext',
      moduleResolution: 'bundler',
      lib: ['es2024', 'dom'],
      types: [],
      noEmit: true,
      allowImportingTsExtensions: true
    },
    files: ['portal-api.ts', 'call.ts', ...Object.keys(WRONG_CALLS)]
  }))

  // The project's own compiler.
  // Run in the client's folder, so that it names the files as written here.
  const output = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir, env }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error)
  )
  t.match(output, /error TS\d+/, 'the compiler ran and reported')
  const errorsIn = (file: string) => output.split('\n').filter((line) => line.startsWith(file)).join('\n')
  t.equal(errorsIn('portal-api.ts'), '', 'the generated client compiles under strict settings')
  t.equal(errorsIn('call.ts'), '', 'the typed calls compile')
  for (const file of Object.keys(WRONG_CALLS)) {
    t.match(errorsIn(file), /error TS\d+/, `${file} does not compile`)
  }
})
