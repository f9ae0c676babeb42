import t from 'tap'
import { readdir, readFile, stat } from 'node:fs/promises'
import { dirname, extname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The README is the front door and the manual lives in docs/: the README stays
 * short, every relative link in the Markdown resolves (file and heading), and
 * comments and docs say what the code does, not which tracker ticket brought it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const README_MAX_LINES = 200
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'data', '.tap', 'coverage', '.scratch'])

async function walk (dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...await walk(join(dir, entry.name)))
    } else if (entry.isFile()) {
      files.push(join(dir, entry.name))
    }
  }
  return files
}

const repoFiles = await walk(ROOT)
const shown = (file: string) => relative(ROOT, file).split(sep).join('/')
const markdownFiles = repoFiles.filter((file) => extname(file) === '.md')

/** Fenced blocks blanked line by line (so line numbers stay right) and inline code removed: links there are examples. */
function proseLines (markdown: string): string[] {
  let fenced = false
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '')
  })
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading === null) continue
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

interface Link { line: number, target: string }

function relativeLinks (markdown: string): Link[] {
  const links: Link[] = []
  proseLines(markdown).forEach((text, index) => {
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[.../^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text) ?? []].slice(1)
    ]
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      links.push({ line: index + 1, target })
    }
  })
  return links
}

async function exists (path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false)
}

t.test(`README.md stays a front door (at most ${README_MAX_LINES} lines)`, async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const lines = readme.replace(/\n$/, '').split('\n').length
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/`)
})

t.test("README.md's layout table names every top-level folder", async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const folders = (await readdir(ROOT, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !SKIPPED_DIRS.has(entry.name) && (!entry.name.startsWith('.') || entry.name === '.ci'))
    .map((entry) => entry.name)
  t.ok(folders.includes('routes'), `found ${folders.length} folders`)
  for (const folder of folders) t.ok(readme.includes(`| \`${folder}/`), `${folder}/ is in the layout table`)
})

t.test('relative links in the Markdown point to files and headings that exist', async (t) => {
  t.ok(markdownFiles.some((file) => shown(file) === 'README.md'), 'README.md is checked')
  t.ok(markdownFiles.some((file) => shown(file).startsWith('docs/')), 'docs/ is checked')
  const broken: string[] = []
  let checked = 0
  for (const file of markdownFiles) {
    const markdown = await readFile(file, 'utf8')
    for (const { line, target } of relativeLinks(markdown)) {
      checked++
      const [pathPart = '', anchor] = target.split('#', 2)
      const path = decodeURIComponent(pathPart)
      const resolved = path === '' ? file : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path)
      const where = `${shown(file)}:${line} -> ${target}`
      if (!resolved.startsWith(ROOT)) {
        broken.push(`${where} (outside the repository)`)
      } else if (!await exists(resolved)) {
        broken.push(`${where} (no such file)`)
      } else if (anchor !== undefined && anchor !== '' && extname(resolved) === '.md' &&
        !headingAnchors(await readFile(resolved, 'utf8')).has(anchor.toLowerCase())) {
        broken.push(`${where} (no such heading)`)
      }
    }
  }
  t.ok(checked > 20, `checked ${checked} links`)
  t.same(broken, [], 'every relative link resolves')
})

// Built from pieces so that this file does not match itself.
const TICKET = 'iss' + 'ue'
const TRACKER_HISTORY = [
  new RegExp(`\\b${TICKET}s?\\s?#?\\d+`, 'i'), // a ticket by number
  new RegExp(`\\b(later|earlier|previous|next|future|upcoming) ${TICKET}s?\\b`, 'i') // tickets by position in time
]

const isScanned = (file: string) => {
  const path = shown(file)
  return ['.ts', '.md', '.sh'].includes(extname(path)) || path.startsWith('.ci/') || path === '.env.example'
}

t.test('code and docs carry no tracker history', async (t) => {
  const scanned = repoFiles.filter(isScanned)
  t.ok(scanned.length > 100, `scanned ${scanned.length} files`)
  const found: string[] = []
  for (const file of scanned) {
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines.forEach((line, index) => {
      if (TRACKER_HISTORY.some((pattern) => pattern.test(line))) found.push(`${shown(file)}:${index + 1}: ${line.trim()}`)
    })
  }
  t.same(found, [], 'say what the code does and why, not which ticket or session brought it')
})

t.test('the checks catch what they are for', async (t) => {
  t.ok(TRACKER_HISTORY.some((p) => p.test(`// added in ${TICKET} 7`)), 'a ticket number')
  t.ok(TRACKER_HISTORY.some((p) => p.test(`see ${TICKET} #12`)), 'a ticket reference')
  t.ok(TRACKER_HISTORY.some((p) => p.test(`Later ${TICKET}s add the MCP endpoint`)), 'a ticket to come')
  t.notOk(TRACKER_HISTORY.some((p) => p.test('the token endpoint issues a new access token')), 'the verb is fine')
  t.same(relativeLinks('[a](docs/a.md) [b](https://x.test) `[c](no.md)` [d](#top)\n[e]: ../e.md').map((l) => l.target),
    ['docs/a.md', '#top', '../e.md'])
  t.ok(headingAnchors('## The MCP endpoint (`/api/mcp`)\n## Rules\n## Rules').has('the-mcp-endpoint-apimcp'))
  t.ok(headingAnchors('## Rules\n## Rules').has('rules-1'), 'repeated headings are numbered')
})
