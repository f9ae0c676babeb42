import { lookup } from 'node:dns/promises'
import { Registry } from 'prom-client'
import t from 'tap'
import { listenForScrapes } from '../../lib/metrics/scrape.ts'
import { freePort } from '../support/process.ts'

t.test('the METRICS_PORT listener with HOST=localhost binds every address localhost resolves to, as the main port does', async (t) => {
  const port = await freePort()
  const listener = await listenForScrapes(new Registry(), { port, host: 'localhost', token: undefined })
  t.teardown(() => listener.close())
  const resolved = (await lookup('localhost', { all: true })).map((entry) => entry.address).sort()
  t.same(listener.addresses.map((address) => address.address).sort(), [...new Set(resolved)], `bound: ${resolved.join(', ')}`)
  for (const address of listener.addresses) {
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
    const response = await fetch(`http://${host}:${port}/metrics`)
    t.equal(response.status, 200, `scraped on ${address.address}`)
    t.equal((await fetch(`http://${host}:${port}/other`)).status, 404)
  }
})

t.test('an explicit address binds only that one, and the token is required when set', async (t) => {
  const port = await freePort()
  const listener = await listenForScrapes(new Registry(), { port, host: '127.0.0.1', token: 't'.repeat(32) })
  t.teardown(() => listener.close())
  t.same(listener.addresses.map((address) => address.address), ['127.0.0.1'])
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401)
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${'t'.repeat(32)}` } })).status, 200)
})
