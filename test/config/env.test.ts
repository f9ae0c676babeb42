import fc from 'fast-check'
import t from 'tap'
import { configWarnings } from '../../config/derived-rules.ts'
import { ConfigError, loadConfig, type ConfigProblem } from '../../config/env.ts'
import { displayValue, formatProblem, hideUrlPassword } from '../../config/problems.ts'
import { VARIABLES, variableInfo } from '../../config/schema.ts'

/** The problems loadConfig reports for `env`; [] when it loads. */
function problemsOf (env: Record<string, unknown>): ConfigProblem[] {
  try {
    loadConfig(env)
    return []
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.problems
  }
}

t.test('defaults give a runnable configuration', async (t) => {
  const config = loadConfig({})
  t.equal(config.PORT, 3000)
  t.equal(config.BASE_URL, 'http://localhost:3000')
  t.equal(config.DATA_DIR, './data')
  t.equal(config.DATABASE_URL, undefined, 'no DATABASE_URL means the embedded PostgreSQL')
  t.equal(config.ERP_CREDENTIALS_KEY, undefined, 'generated at start, not here')
  t.same(config.corsOrigins, [])
  t.same(configWarnings(config), [], 'and nothing to warn about')
})

t.test('BASE_URL follows PORT and loses a trailing slash', async (t) => {
  t.equal(loadConfig({ PORT: '8080' }).BASE_URL, 'http://localhost:8080')
  t.equal(loadConfig({ BASE_URL: 'https://portal.example.com/' }).BASE_URL, 'https://portal.example.com')
})

t.test('values from the environment are coerced and validated', async (t) => {
  const config = loadConfig({ PORT: '4000', SEED_DEMO: 'false', TRUST_PROXY: 'true', CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' })
  t.equal(config.PORT, 4000)
  t.equal(config.SEED_DEMO, false)
  t.equal(config.TRUST_PROXY, true)
  t.same(config.corsOrigins, ['https://a.example.com', 'http://localhost:5173'])
})

t.test('with a source, only that source is read (not process.env)', async (t) => {
  process.env.DEMO_COMPANY = 'From the environment'
  t.teardown(() => { delete process.env.DEMO_COMPANY })
  t.equal(loadConfig({}).DEMO_COMPANY, 'Demo Company')
})

t.test('the sandbox payment provider is on by default only with the embedded database', async (t) => {
  t.equal(loadConfig({}).PAYMENT_PROVIDERS, 'sandbox', 'out of the box')
  t.equal(loadConfig({ DATABASE_URL: 'postgres://db.example.com/erp' }).PAYMENT_PROVIDERS, '', 'an external database means production: opt in explicitly')
  t.equal(loadConfig({ DATABASE_URL: 'postgres://db.example.com/erp', PAYMENT_PROVIDERS: 'sandbox' }).PAYMENT_PROVIDERS, 'sandbox')
})

t.test('each invalid setting is one problem: variable, value, what is allowed, an example', async (t) => {
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ PORT: 'abc' }, 'PORT', /^Invalid configuration: PORT="abc"; allowed: an integer from 1 to 65535; example: PORT=3000$/],
    [{ PORT: '70000' }, 'PORT', /PORT="70000"; allowed: an integer from 1 to 65535/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /DATABASE_URL="mysql:\/\/x"; allowed: a postgres:\/\/ or postgresql:\/\/ connection URL; example: DATABASE_URL=postgres:\/\//],
    [{ BASE_URL: 'ftp://portal' }, 'BASE_URL', /BASE_URL="ftp:\/\/portal"; allowed: an http:\/\/ or https:\/\/ URL/],
    [{ DEMO_ADMIN_EMAIL: 'not-an-email' }, 'DEMO_ADMIN_EMAIL', /DEMO_ADMIN_EMAIL="not-an-email"; allowed: an e-mail address/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /LOG_LEVEL="loud"; allowed: one of fatal, error, warn, info, debug, trace, silent; example: LOG_LEVEL=debug/],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO', /SEED_DEMO="maybe"; allowed: true or false/],
    [{ KUBE_INGRESS_CLASS: 'Not_A_Name' }, 'KUBE_INGRESS_CLASS', /allowed: a Kubernetes object name/],
    [{ MAIL_FROM: 'nobody' }, 'MAIL_FROM', /MAIL_FROM="nobody"; allowed: an e-mail address, optionally as `Name <address>`/],
    [{ CORS_ORIGINS: 'https://ok.example.com,not a url' }, 'CORS_ORIGINS', /CORS_ORIGINS="https:\/\/ok.example.com,not a url" \("not a url" is not an origin\); allowed: comma-separated origins/],
    [{ ERP_IMAGE: 'my image:{version}' }, 'ERP_IMAGE', /ERP_IMAGE="my image:\{version\}" \("my image:16.0" is not an image reference\); allowed: .*; example: ERP_IMAGE=registry.example.com\/erp:\{version\}/],
    [{ ERP_IMAGE: 'odoo:{versoin}' }, 'ERP_IMAGE', /\(the only placeholder is \{version\}\)/],
    [{ DATABASE_URL: 'postgres://[broken' }, 'DATABASE_URL', /DATABASE_URL="postgres:\/\/\[broken" \(not a URL\)/],
    [{ BASE_URL: 'https://portal.example.com/?x=1' }, 'BASE_URL', /\(an origin \(and path\) takes no query or fragment\)/],
    [{ PORT: '4000', AUTH_PORT: '4000' }, 'AUTH_PORT', /AUTH_PORT="4000" \(the auth server started by the portal cannot share PORT\); allowed: a port other than PORT; example: AUTH_PORT=4001/],
    [{ EMBEDDED_PG_PORT: '3000' }, 'EMBEDDED_PG_PORT', /EMBEDDED_PG_PORT="3000" \(the embedded PostgreSQL cannot share PORT or AUTH_PORT\)/],
    [{ OAUTH_ACCESS_TOKEN_TTL_SECONDS: '86400', OAUTH_REFRESH_TOKEN_TTL_SECONDS: '3600' }, 'OAUTH_REFRESH_TOKEN_TTL_SECONDS', /allowed: more than OAUTH_ACCESS_TOKEN_TTL_SECONDS \(86400\)/],
    [{ ERP_UPGRADE_COMMANDS: '{"18.0": {"image": "odoo:{version}"}}' }, 'ERP_UPGRADE_COMMANDS', /ERP_UPGRADE_COMMANDS=.* \(18\.0: "command" must be a non-empty array of strings\)/],
    [{ PAYMENT_PROVIDERS: 'stripe' }, 'PAYMENT_PROVIDERS', /PAYMENT_PROVIDERS="stripe" \(names "stripe", which is not supported \(supported: sandbox\)\)/]
  ]
  for (const [env, variable, line] of cases) {
    const problems = problemsOf(env)
    t.same(problems.map((p) => p.variable), [variable], JSON.stringify(env))
    const text = formatProblem(problems[0]!)
    t.match(text, line)
    t.notMatch(text, /\n/, 'on one line')
  }
  t.same(problemsOf({ PORT: '4000', AUTH_PORT: '4000', AUTH_SERVER_PROCESS: 'false' }), [], 'a separately run auth server may use any port')
  t.same(problemsOf({ EMBEDDED_PG_PORT: '3000', DATABASE_URL: 'postgres://db.example.com/erp' }), [], 'no embedded PostgreSQL, no clash')
})

t.test('several invalid settings: one line each, in schema order', async (t) => {
  const error = t.throws(() => loadConfig({ LOG_LEVEL: 'loud', PORT: 'abc', DB_POOL_MAX: '0' })) as ConfigError
  t.same(error.problems.map((p) => p.variable), ['PORT', 'LOG_LEVEL', 'DB_POOL_MAX'])
  t.equal(error.message.split('\n').length, 3)
})

t.test('secret values are never shown, only their length; URL passwords are hidden', async (t) => {
  const secrets = {
    JWT_SECRET: 'short-jwt-secret',
    ERP_CREDENTIALS_KEY: 'not base64 at all!',
    HANDOFF_SECRET: 'short-handoff',
    SUPPORT_API_TOKEN: 'short-token',
    DEMO_ADMIN_PASSWORD: 'pw-short'
  }
  for (const [variable, value] of Object.entries(secrets)) {
    const [problem] = problemsOf({ [variable]: value })
    const text = formatProblem(problem!)
    t.notMatch(text, value, `${variable}: the value is not echoed`)
    t.match(text, `${variable}=(hidden, ${value.length} characters)`)
  }
  const webhook = formatProblem(problemsOf({ PAYMENT_WEBHOOK_SECRETS: 'sandbox:tooshort' })[0]!)
  t.notMatch(webhook, 'tooshort')
  t.match(webhook, /PAYMENT_WEBHOOK_SECRETS=\(hidden, 16 characters\) \(the secret of sandbox must be at least 16 characters\)/)
  const url = formatProblem(problemsOf({ DATABASE_URL: 'postgres://erp:s3cr3t@[broken/erp' })[0]!)
  t.notMatch(url, 's3cr3t')
  t.match(url, 'DATABASE_URL="postgres://erp:(hidden)@[broken/erp"')
})

t.test('hideUrlPassword never lets the password through (property)', async (t) => {
  const password = fc.string({ minLength: 1, maxLength: 30 }).filter((p) => !p.includes('@') && /\S/.test(p) && p.trim() === p)
  fc.assert(fc.property(fc.constantFrom('postgres', 'smtps', 'postgresql'), fc.stringMatching(/^[a-z0-9]{1,12}$/), password, fc.domain(),
    (scheme, user, secret, host) => {
      const shown = hideUrlPassword(`${scheme}://${user}:${secret}@${host}/db`)
      return shown === `${scheme}://${user}:(hidden)@${host}/db`
    }))
  t.equal(hideUrlPassword('postgres://db.example.com/erp'), 'postgres://db.example.com/erp', 'no userinfo: unchanged')
  t.equal(hideUrlPassword('erp:s3cr3t@db.example.com/erp'), 'erp:(hidden)@db.example.com/erp', 'no scheme: hidden all the same')
  t.equal(hideUrlPassword('ERP Portal <no-reply@example.com>'), 'ERP Portal <no-reply@example.com>', 'an address is not a password')
  t.notMatch(formatProblem(problemsOf({ DATABASE_URL: 'erp:s3cr3t@db.example.com/erp' })[0]!), 's3cr3t', 'a URL without its scheme')
  t.equal(displayValue({ value: undefined }), '(unset)')
  t.equal(displayValue({ value: 'a\nb' }), '"a\\nb"', 'a newline cannot break the one line')
})

t.test('a fixed ERP_IMAGE (no {version}) is allowed, with a warning', async (t) => {
  const config = loadConfig({ ERP_IMAGE: 'registry.example.com/erp:2024-05', ERP_VERSIONS: '17.0' })
  t.equal(config.ERP_IMAGE, 'registry.example.com/erp:2024-05')
  const [warning, ...more] = configWarnings(config)
  t.same(more, [])
  t.match(warning, /ERP_IMAGE="registry.example.com\/erp:2024-05" has no \{version\}: every instance runs this image, whatever ERP version is requested \(ERP_VERSIONS=17.0\)/)
  t.same(configWarnings(loadConfig({ ERP_IMAGE: 'registry.example.com/erp:{version}' })), [])
})

t.test('ERP_IMAGE: a valid reference for any registry, path and tag accepts {version} (property)', async (t) => {
  const component = fc.stringMatching(/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/).filter((c) => c.length <= 30)
  fc.assert(fc.property(fc.option(fc.domain()), fc.option(fc.integer({ min: 1, max: 65535 })), fc.array(component, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[A-Za-z0-9_.-]{0,20}$/),
    (registry, port, path, suffix) => {
      const prefix = registry === null ? '' : `${registry}${port === null ? '' : `:${port}`}/`
      const template = `${prefix}${path.join('/')}:{version}${suffix}`
      return problemsOf({ ERP_IMAGE: template }).length === 0
    }), { numRuns: 300 })
  fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => /[\s{}"'`$;|&]/.test(s)), (junk) =>
    problemsOf({ ERP_IMAGE: `odoo${junk}:{version}` }).map((p) => p.variable).join() === 'ERP_IMAGE'), { numRuns: 300 })
})

t.test('every variable is documented: a description, what is allowed, and an example that is valid', async (t) => {
  for (const name of VARIABLES) {
    const info = variableInfo(name)
    t.ok(info.description.length > 10, `${name} has a description`)
    t.ok(info.allowed.length > 3, `${name} says what is allowed`)
    t.ok(info.example !== '' || info.default === '', `${name} has an example`)
    if (info.example.startsWith('$(')) continue // a command to run, not a literal
    t.same(problemsOf({ [name]: info.example }), [], `${name}=${info.example} is valid on its own`)
  }
})

t.test('AUTH_SERVER_URL: the portal forwards to an auth server elsewhere and starts none of its own', async (t) => {
  t.equal(loadConfig({}).AUTH_SERVER_PROCESS, true, 'by default the portal runs its auth server as a child')
  const remote = loadConfig({ AUTH_SERVER_URL: 'http://erp-auth-server:3001' })
  t.equal(remote.AUTH_SERVER_PROCESS, false)
  t.equal(remote.AUTH_SERVER_URL, 'http://erp-auth-server:3001')
  t.throws(() => loadConfig({ AUTH_SERVER_URL: 'http://erp-auth-server:3001/?x=1' }), /AUTH_SERVER_URL/, 'an origin, no query')
})
