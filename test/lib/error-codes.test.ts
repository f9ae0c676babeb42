import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { definedErrors } from '../../lib/errors.ts'

const root = join(import.meta.dirname, '..', '..')
const SOURCE_DIRS = ['lib', 'plugins', 'routes', 'mcp', 'auth-server', 'provisioning', 'database']

/** A missing thing: `<THING>_NOT_FOUND` (docs/api.md, "Error codes"). */
const NOT_FOUND_CODE = /^[A-Z]+(_[A-Z]+)*_NOT_FOUND$/

/**
 * The 404s that do not say "there is no such thing", listed in docs/api.md: why an existing
 * invitation link no longer works (the accept page says each its own way), and the support
 * operator API while it is switched off.
 */
const OTHER_404S = new Set(['INVITATION_EXPIRED', 'INVITATION_CANCELLED', 'INVITATION_USED', 'SUPPORT_API_DISABLED'])

async function sourceFiles (dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true, recursive: true })
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
}

const files = (await Promise.all(SOURCE_DIRS.map(sourceFiles))).flat()
const texts = new Map(await Promise.all(files.map(async (file) => [file, await readFile(join(root, file), 'utf8')] as const)))
// Every module that defines an error code, loaded, so the registry holds them all.
const defining = files.filter((file) => /\bdefineError\(/.test(texts.get(file) ?? ''))
await Promise.all(defining.map((file) => import(join(root, file))))

t.test('every app error code is loaded for the check', async (t) => {
  const codes = new Set(definedErrors().map(({ code }) => code))
  t.ok(defining.length >= 20, `${defining.length} modules define error codes`)
  for (const code of ['TICKET_NOT_FOUND', 'BACKUP_NOT_FOUND', 'USER_NOT_FOUND', 'INSTANCE_NOT_FOUND', 'COMPANY_NOT_FOUND', 'VALIDATION_FAILED']) {
    t.ok(codes.has(code), `${code} is defined`)
  }
})

t.test('a 404 app error names the missing thing: <THING>_NOT_FOUND, never the bare NOT_FOUND', async (t) => {
  const notFound = definedErrors().filter(({ statusCode }) => statusCode === 404)
  t.ok(notFound.length >= 10)
  for (const { code } of notFound) {
    if (OTHER_404S.has(code)) continue
    t.match(code, NOT_FOUND_CODE, `${code} is <THING>_NOT_FOUND`)
    t.not(code, 'NOT_FOUND', 'the bare NOT_FOUND is the framework\'s, for requests it cannot place')
  }
  for (const { code, statusCode } of definedErrors()) {
    if (code.endsWith('_NOT_FOUND')) t.equal(statusCode, 404, `${code} answers 404`)
  }
})

t.test('malformed input answers the one validation code, defined once with 400', async (t) => {
  const codes = definedErrors()
  t.same(codes.filter(({ code }) => code === 'VALIDATION_FAILED'), [{ code: 'VALIDATION_FAILED', statusCode: 400 }])
  t.same(codes.filter(({ code }) => code.endsWith('_INPUT_INVALID')), [], 'no room has its own "input invalid" code for what a schema could say')
})

t.test('no source throws the generic NOT_FOUND for a resource', async (t) => {
  const throwers = files.filter((file) => file !== 'plugins/app/http/envelope.ts' && /['"`]NOT_FOUND['"`]/.test(texts.get(file) ?? ''))
  t.same(throwers, [], 'only the envelope\'s fallback for framework 404s spells NOT_FOUND')
})
