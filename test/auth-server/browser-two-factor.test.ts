import t from 'tap'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { authorizationUrl, exchangeCode, registerAgent } from '../support/oauth-agent.ts'
import { consentResponse, decideAndReturn, launchChromium, newPage, signIn, startCallbackServer } from '../support/browser.ts'
import { startSingleOrigin } from '../support/single-origin.ts'
import { enableTwoFactor, totpCode } from '../support/two-factor.ts'

// A person with a second factor connects an agent in Chromium: the password alone never reaches the consent page.
t.test('the OAuth flow in Chromium asks for the second factor after the password', async (t) => {
  const so = await startSingleOrigin(t)
  const { secret, recoveryCodes } = await enableTwoFactor(so.app, so.person.token)
  const callbacks = await startCallbackServer(t)
  const browser = await launchChromium(t)
  const agent = await registerAgent(so.origin, 'Two-factor agent', callbacks.redirectUri)
  const handoffCodes = async () => Number((await so.pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_handoff_codes')).rows[0]?.n)

  t.test('password, then a wrong code (shown again), then the right code: consent, Allow, a token for the person', async (t) => {
    const { page, consoleErrors } = await newPage(t, browser)
    const authorization = await authorizationUrl(agent, so.origin)
    await page.goto(authorization.url)
    await signIn(page, so.person.email, so.person.password)

    t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Two-step verification', 'the second step, not the consent page')
    t.equal(page.url().split('?')[0], `${so.origin}/login`)
    t.equal(await handoffCodes(), 0, 'the password alone minted no handoff code')
    t.equal(callbacks.received.length, 0)

    const right = totpCode(secret, 1)
    await page.getByLabel('Authentication code').fill(right === '000000' ? '111111' : '000000')
    await page.getByRole('button', { name: 'Verify' }).click()
    t.equal(await page.getByRole('alert').innerText(), 'The code is wrong, expired or already used')
    t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Two-step verification', 'still the second step')
    t.equal(await handoffCodes(), 0)

    const consent = consentResponse(page, so.origin)
    await page.getByLabel('Authentication code').fill(right)
    await page.getByRole('button', { name: 'Verify' }).click()
    t.equal((await consent).status(), 200)
    t.match(page.url(), `${so.origin}/oauth/consent?oauth_transaction=`)

    const query = await decideAndReturn(page, 'Allow', callbacks, consoleErrors)
    t.equal(query.get('state'), authorization.state)
    const tokens = await exchangeCode(agent, new URL(`${callbacks.redirectUri}?${query}`), authorization)
    const jwks = createRemoteJWKSet(new URL(`${so.origin}/.well-known/jwks.json`))
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: so.origin, audience: so.mcpResource, typ: 'at+jwt' })
    t.equal(payload.sub, so.person.user.id)
    t.same(consoleErrors, [], 'no CSP violation or script error in the browser')
  })

  t.test('a recovery code in the same field works too, once', async (t) => {
    const { page, consoleErrors } = await newPage(t, browser)
    const authorization = await authorizationUrl(agent, so.origin)
    await page.goto(authorization.url)
    await signIn(page, so.person.email, so.person.password)
    const consent = consentResponse(page, so.origin)
    await page.getByLabel('Authentication code').fill(recoveryCodes[0]!)
    await page.getByRole('button', { name: 'Verify' }).click()
    t.equal((await consent).status(), 200)
    const query = await decideAndReturn(page, 'Deny', callbacks, consoleErrors)
    t.equal(query.get('error'), 'access_denied')
    t.same(consoleErrors, [])
  })

  t.test('the auth server logged no error', async (t) => {
    t.same(so.authServerLog, [])
  })
})
