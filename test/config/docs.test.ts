import { readFile } from 'node:fs/promises'
import t from 'tap'
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../config/docs.ts'
import { VARIABLES } from '../../config/schema.ts'

t.test('docs/configuration.md is what the schema renders (run `npm run docs:config` after changing it)', async (t) => {
  const committed = await readFile(CONFIGURATION_DOC, 'utf8')
  t.equal(committed, renderConfigurationDoc(), 'docs/configuration.md is current')
})

t.test('it lists every variable once, and .env.example mentions each', async (t) => {
  const rendered = renderConfigurationDoc()
  const example = await readFile(new URL('../../.env.example', import.meta.url), 'utf8')
  for (const name of VARIABLES) {
    t.equal(rendered.split(`| \`${name}\` |`).length - 1, 1, `${name} has one row`)
    t.match(example, new RegExp(`^# ${name}=`, 'm'), `.env.example shows ${name}`)
  }
})
