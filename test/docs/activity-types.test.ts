import t from 'tap'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { ACTIVITY_DESCRIPTIONS, ACTIVITY_TARGET_DESCRIPTIONS } from '../../plugins/app/activity/activity-types.ts'

/**
 * docs/company.md lists the activity catalog (types and targets, with their
 * meaning): its tables are the catalog, row for row, in the catalog's order.
 */
const COMPANY_DOC = fileURLToPath(new URL('../../docs/company.md', import.meta.url))

/** The `| \`key\` | meaning |` rows under a heading, up to the next heading. */
function tableUnder (markdown: string, heading: string): Array<[string, string]> {
  const lines = markdown.split('\n')
  const start = lines.indexOf(heading)
  if (start === -1) return []
  const end = lines.findIndex((line, index) => index > start && /^#{1,6}\s/.test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end).flatMap((line) => {
    const row = /^\|\s*`([^`]+)`\s*\|\s*(.*?)\s*\|$/.exec(line)
    return row === null ? [] : [[row[1]!, row[2]!] as [string, string]]
  })
}

const asRows = (catalog: Record<string, string>) => Object.entries(catalog).map(([key, meaning]) => `| \`${key}\` | ${meaning} |`).join('\n')

t.test('docs/company.md lists every activity type with its meaning, as the catalog does', async (t) => {
  const doc = await readFile(COMPANY_DOC, 'utf8')
  if (!t.same(tableUnder(doc, '### Activity types'), Object.entries(ACTIVITY_DESCRIPTIONS), 'the table under "### Activity types" is the catalog')) {
    t.comment(`its rows should read:\n${asRows(ACTIVITY_DESCRIPTIONS)}`)
  }
})

t.test('docs/company.md lists every activity target type with its meaning, as the catalog does', async (t) => {
  const doc = await readFile(COMPANY_DOC, 'utf8')
  if (!t.same(tableUnder(doc, '### Activity targets'), Object.entries(ACTIVITY_TARGET_DESCRIPTIONS), 'the table under "### Activity targets" is the catalog')) {
    t.comment(`its rows should read:\n${asRows(ACTIVITY_TARGET_DESCRIPTIONS)}`)
  }
})

t.test('the table reader finds the rows under the heading only', async (t) => {
  const doc = '## A\n| `x.y` | not this |\n### Activity types\n\n| Type | Meaning |\n|---|---|\n| `a.b` | The A, `b` |\n### Next\n| `c.d` | no |'
  t.same(tableUnder(doc, '### Activity types'), [['a.b', 'The A, `b`']])
  t.same(tableUnder(doc, '### Missing'), [])
})
