import t from 'tap'
import { ConfigError, loadConfig } from '../../config/env.ts'

t.test('defaults give a runnable configuration', async (t) => {
  const config = loadConfig({})
  t.equal(config.PORT, 3000)
  t.equal(config.BASE_URL, 'http://localhost:3000')
  t.equal(config.DATA_DIR, './data')
  t.equal(config.DATABASE_URL, undefined, 'no DATABASE_URL means the embedded PostgreSQL')
  t.same(config.corsOrigins, [])
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

t.test('the sandbox payment provider is on by default only with the embedded database', async (t) => {
  t.equal(loadConfig({}).PAYMENT_PROVIDERS, 'sandbox', 'out of the box')
  t.equal(loadConfig({ DATABASE_URL: 'postgres://db.example.com/erp' }).PAYMENT_PROVIDERS, '', 'an external database means production: opt in explicitly')
  t.equal(loadConfig({ DATABASE_URL: 'postgres://db.example.com/erp', PAYMENT_PROVIDERS: 'sandbox' }).PAYMENT_PROVIDERS, 'sandbox')
})

t.test('an invalid value fails with a message naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT must be integer/],
    [{ PORT: '70000' }, /PORT must be <= 65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must match pattern/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must NOT have fewer than 32 characters/],
    [{ BASE_URL: 'ftp://portal' }, /BASE_URL must match/],
    [{ DEMO_ADMIN_EMAIL: 'not-an-email' }, /DEMO_ADMIN_EMAIL must match format "email"/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ CORS_ORIGINS: 'https://ok.example.com,not a url' }, /CORS_ORIGINS entry "not a url"/]
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), { name: ConfigError.name, message }, JSON.stringify(env))
  }
})
