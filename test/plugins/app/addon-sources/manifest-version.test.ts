/** The ERP series a manifest's `version` names, by Odoo's convention (five parts: series first). */
import t from 'tap'
import fc from 'fast-check'
import { erpSeriesOf, manifestModule } from '../../../../plugins/app/addon-sources/addon-checkout.ts'

const part = fc.integer({ min: 0, max: 999 })

t.test('five parts name the series; fewer or more name none', async (t) => {
  fc.assert(fc.property(part, part, part, part, part, (a, b, c, d, e) => erpSeriesOf(`${a}.${b}.${c}.${d}.${e}`) === `${a}.${b}`))
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => erpSeriesOf(parts.join('.')) === null))
  fc.assert(fc.property(fc.array(part, { minLength: 6, maxLength: 8 }), (parts) => erpSeriesOf(parts.join('.')) === null))
  t.equal(erpSeriesOf(undefined), null)
  t.equal(erpSeriesOf('17.0.1.0.0-beta'), null, 'anything else in the string: none')
})

t.test('read from the manifest text, never evaluated', async (t) => {
  const manifest = "{\n  'name': 'Invoice stamps',\n  'version': '17.0.1.2.0',\n  'summary': 'Stamps',\n  'depends': ['account'],\n}\n"
  t.same(manifestModule('invoice_stamps', manifest), { technicalName: 'invoice_stamps', name: 'Invoice stamps', description: 'Stamps', erpSeries: '17.0' })
  t.equal(manifestModule('no_version', "{'name': 'X'}")?.erpSeries, null)
})
