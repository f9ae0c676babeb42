/**
 * The consent page's least-privilege choice, as a person's browser posts it:
 * the role caps the level, "only these instances" needs one of the company's,
 * and what was chosen is stored with the grant.
 */
import t from 'tap'
import { addMember } from '../support/accounts.ts'
import { createBrowser, formAction } from '../support/cookie-browser.ts'
import { authorizationUrl, decide, reachConsent, registerAgent, type ConsentPage } from '../support/oauth-agent.ts'
import { startSingleOrigin } from '../support/single-origin.ts'
import { recordInstance } from '../support/instance-rows.ts'

const so = await startSingleOrigin(t)
const tenantId = so.person.user.tenant_id
const shop = await recordInstance(so.app, tenantId, { name: 'Shop' })
const member = await addMember(so.app, tenantId, { role: 'user' })

async function consentFor (person: { email: string, password: string }) {
  const agent = await registerAgent(so.origin, 'Choosy agent')
  const authorization = await authorizationUrl(agent, so.origin)
  const browser = createBrowser()
  return { browser, consent: await reachConsent(browser, { person }, authorization.url) }
}

const storedAccess = async () => (await so.pool.query<{ level: string, instance_ids: number[] | null }>(
  'SELECT level, instance_ids FROM oauth_grant_access ORDER BY updated_at DESC LIMIT 1')).rows[0]

const post = (browser: ReturnType<typeof createBrowser>, consent: ConsentPage, fields: Record<string, string>) =>
  browser.submit(formAction(consent.html, consent.url), { oauth_transaction: consent.uid, csrf: consent.csrf, decision: 'allow', ...fields })

t.test('the page offers the levels in words, read only checked, and lists the company\'s instances', async (t) => {
  const { consent } = await consentFor(so.person)
  t.match(consent.html, /<input type="radio" name="level" value="read" checked>/, 'read only is the default')
  t.match(consent.html, /value="administer">/, 'an admin may give Administer')
  t.match(consent.html, /It can read your instances/)
  t.match(consent.html, new RegExp(`name="instance" value="${shop}"`), 'the instance is offered')
  t.match(consent.html, /data-client-verification="unverified"/, 'a registered client\'s name is unverified')
})

t.test('a member cannot give Administer: not offered, and a forged form is lowered to Operate', async (t) => {
  const { browser, consent } = await consentFor(member)
  t.match(consent.html, /value="administer" disabled>/, 'shown, not offered')
  t.match(consent.html, /your role does not allow this/)
  const callback = await decide(browser, consent, 'allow', { level: 'administer' })
  t.ok(callback.searchParams.get('code'), 'allowed')
  t.match(await storedAccess(), { level: 'operate', instance_ids: null })
})

t.test('no level chosen is read only; chosen instances are stored', async (t) => {
  const first = await consentFor(so.person)
  await decide(first.browser, first.consent, 'allow', {})
  t.match(await storedAccess(), { level: 'read', instance_ids: null })
  const second = await consentFor(so.person)
  await decide(second.browser, second.consent, 'allow', { level: 'operate', instances: [shop] })
  t.match(await storedAccess(), { level: 'operate', instance_ids: [shop] })
})

t.test('a choice that cannot be taken shows the page again with the problem, and grants nothing', async (t) => {
  const grants = async () => (await so.pool.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE kind = 'Grant'")).rows[0].n
  const before = await grants()
  for (const [label, fields, problem] of [
    ['only these instances, none ticked', { level: 'read', instances: 'some' }, /Choose at least one instance/],
    ['another company\'s instance', { level: 'read', instances: 'some', instance: '999999' }, /no longer exists/],
    ['an unknown level', { level: 'root' }, /Choose what the agent may do/]
  ] as const) {
    const { browser, consent } = await consentFor(so.person)
    const response = await post(browser, consent, fields)
    t.equal(response.status, 400, label)
    t.match(await response.text(), problem, label)
  }
  t.equal(await grants(), before, 'no grant was made')
})
