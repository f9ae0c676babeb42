import { randomBytes } from 'node:crypto'
import pg from 'pg'

interface Teardown {
  teardown: (fn: () => unknown) => void
}

/** Connection string of the same server with another database name. */
export function withDatabase (url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

export async function adminQuery (sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: requireEnv('TEST_DATABASE_URL') })
  await client.connect()
  try {
    return await client.query(sql, params)
  } finally {
    await client.end()
  }
}

/**
 * A database of its own for one test file: a clone of the migrated template
 * that test/run.ts prepared (CREATE DATABASE ... TEMPLATE is a file copy, fast).
 */
export async function createTestDatabase (t: Teardown, options: { empty?: boolean } = {}): Promise<string> {
  const template = options.empty === true ? 'template0' : requireEnv('TEST_TEMPLATE_DB')
  const name = `erp_test_${process.env.TEST_RUN_ID ?? 'adhoc'}_${randomBytes(5).toString('hex')}`
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`)
      break
    } catch (error) {
      // 55006: another session is cloning the same template at this moment.
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100))
    }
  }
  t.teardown(() => adminQuery(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`))
  return withDatabase(requireEnv('TEST_DATABASE_URL'), name)
}

function requireEnv (name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') {
    throw new Error(`${name} is not set: run the tests with \`npm test\` (test/run.ts provides the database)`)
  }
  return value
}
