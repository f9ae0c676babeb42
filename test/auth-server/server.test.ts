import t from 'tap'
import { loadConfig } from '../../config/env.ts'
import { startAuthServer } from '../../auth-server/server.ts'
import { createTestDatabase } from '../support/database.ts'
import { tempDir } from './helpers.ts'

t.test('the standalone server requires DATABASE_URL', async (t) => {
  const config = loadConfig({ DATA_DIR: await tempDir(t), JWT_SECRET: 'x'.repeat(40) })
  await t.rejects(startAuthServer({ config, port: 0 }), /requires DATABASE_URL/)
})

t.test('the standalone server listens on 127.0.0.1, keeps its key across restarts, and closes', async (t) => {
  const dataDir = await tempDir(t)
  const config = loadConfig({ DATABASE_URL: await createTestDatabase(t), DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), BASE_URL: 'https://portal.example.test' })
  const kids: string[] = []
  for (let run = 0; run < 2; run++) {
    const server = await startAuthServer({ config, port: 0, log: () => {} })
    t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    const response = await fetch(`${server.url}/.well-known/jwks.json`)
    const { keys } = await response.json() as { keys: Array<{ kid: string }> }
    kids.push(keys[0]?.kid ?? '')
    await server.close()
    await t.rejects(fetch(`${server.url}/.well-known/jwks.json`), 'closed')
  }
  t.equal(kids[0], kids[1], 'same signing key after a restart')
})
