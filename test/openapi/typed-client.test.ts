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

/** A portal client as its author would write it: calls named by operationId, grouped by tag, types named by the components. */
const TYPED_CALL = `
import { Api, type Instance, type PageInfo, type Ticket } from './portal-api.ts'

const api = new Api<string>({
  baseUrl: 'http://localhost:3000',
  securityWorker: (token) => token === null ? {} : { headers: { Authorization: \`Bearer \${token}\` } }
})
const session = await api.auth.logIn({ login: 'admin@example.com', password: 'a long password' })
api.setSecurityData(session.data.token)
const list = await api.instances.listInstances({ page: 1, per_page: 100 }, { secure: true })
const instances: Instance[] = list.data.instances
const pages: PageInfo = list.data.pagination
console.log(pages.total > pages.page * pages.per_page ? 'more pages' : 'all here')
const first = instances[0]
if (first !== undefined) {
  const one = await api.instances.getInstance(first.id, { secure: true })
  const state: string = one.data.instance.state
  const subdomain: string = one.data.instance.subdomain
  console.log(state, subdomain)

  // A request with a body (no route takes a file upload): restore a backup as a new instance.
  const restored = await api.backups.restoreBackup(first.id, 12, { mode: 'new', name: 'Copy', subdomain: 'copy' }, { secure: true })
  const restoring: number = restored.data.instance_id

  // A download is bytes, never JSON: the client is asked for a Blob.
  const archive = await api.backups.downloadBackup(first.id, 12, { secure: true, format: 'blob' })
  const bytes: ArrayBuffer = await archive.data.arrayBuffer()
  const link = await api.backups.createBackupDownloadToken(first.id, 12, { secure: true })
  const byLink: Blob = (await api.backups.downloadBackupWithToken(first.id, 12, { token: link.data.token }, { format: 'blob' })).data

  // The live log is an event stream, opened with its own short-lived token.
  const grant = await api.instances.getInstanceLogStreamToken(first.id, { secure: true })
  const events: string = (await api.instances.openInstanceLogStream(first.id, { token: grant.data.token, stream: 'stderr' }, { format: 'text' })).data
  console.log(restoring, bytes.byteLength, byLink.size, events.length)
}
const tickets = await api.tickets.listTickets({ status: 'open' }, { secure: true })
const ticket: Ticket | undefined = tickets.data.tickets[0]
console.log(ticket?.subject, ticket?.priority)
`

/** Each must fail type-checking: the generated types know the API. */
const WRONG_CALLS: Record<string, string> = {
  'wrong-argument.ts': 'await api.instances.getInstance({ id: 1 })',
  'unknown-field.ts': 'const list = await api.instances.listInstances()\nconsole.log(list.data.instances[0]?.no_such_field)',
  'wrong-body.ts': "await api.tickets.createTicket({ subject: 'Help', description: 'Text', priority: 'whenever' })",
  'unknown-operation.ts': 'await api.instances.renameInstance(1)',
  'archive-as-json.ts': 'const archive = await api.backups.downloadBackup(1, 2)\nconsole.log(archive.data.success)',
  'stream-as-json.ts': 'const events = await api.instances.openInstanceLogStream(1)\nconsole.log(events.data.lines)',
  'wrong-ticket.ts': "import type { Ticket } from './portal-api.ts'\nconst ticket: Ticket = { id: 'x', subject: 'Help' }\nconsole.log(ticket)"
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
  for (const name of ['Instance', 'InstanceDetail', 'Ticket', 'Backup', 'Plan', 'User', 'Invitation', 'Module', 'AddonSource', 'PageInfo', 'ErrorEnvelope']) {
    t.match(client, new RegExp(`^export interface ${name} \\{`, 'm'), `the component ${name} is a type`)
  }
  /** A generated call, from its name to the end of its request. */
  const call = (name: string) => client.slice(client.indexOf(`${name}: (`)).split('}),')[0] ?? ''
  t.match(call('downloadBackup'), 'this.request<Blob, ErrorEnvelope>', 'the download answers a Blob')
  t.notMatch(call('downloadBackup'), 'format: "json"', 'and is not parsed as JSON')
  t.match(call('openInstanceLogStream'), 'this.request<string, ErrorEnvelope>', 'the live log is text')
  t.match(call('openInstanceLogStream'), 'token?: string', 'and takes its stream token')

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
