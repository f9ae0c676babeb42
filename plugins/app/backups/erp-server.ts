import pg from 'pg'

/**
 * The major version of the ERP database server (`SHOW server_version_num`):
 * the backup image must carry a pg_dump at least that new. Asked again after
 * a minute, so a server upgrade is noticed without a restart.
 */
export function createServerMajor (adminUrl: string): () => Promise<number> {
  let known: { major: number, at: number } | undefined
  return async () => {
    if (known !== undefined && Date.now() - known.at < 60_000) return known.major
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 })
    await client.connect()
    try {
      const { rows } = await client.query<{ server_version_num: string }>('SHOW server_version_num')
      const major = Math.floor(Number(rows[0]?.server_version_num) / 10_000)
      known = { major, at: Date.now() }
      return major
    } finally {
      await client.end()
    }
  }
}
