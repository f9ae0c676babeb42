/**
 * Baseline: the least a service can do for an authenticated read. Plain
 * Fastify, a pg.Pool, an RS256 bearer token verified with jose, and one
 * primary-key SELECT per request, answered as JSON.
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL and BENCH_POOL_MAX; it
 * reports its port and the token to send.
 */
import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import { SignJWT, generateKeyPair, jwtVerify } from 'jose'
import pg from 'pg'
import { serveUntilStopped } from './child-process.ts'

const databaseUrl = process.env.BENCH_CHILD_DATABASE_URL
if (databaseUrl === undefined) throw new Error('BENCH_CHILD_DATABASE_URL is not set')

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.BENCH_POOL_MAX ?? 10) })
await pool.query('CREATE TABLE IF NOT EXISTS bench_users (id uuid PRIMARY KEY, name text NOT NULL, email text NOT NULL)')
const userId = randomUUID()
await pool.query('INSERT INTO bench_users (id, name, email) VALUES ($1, $2, $3)', [userId, 'Bench User', 'bench@example.com'])

const { publicKey, privateKey } = await generateKeyPair('RS256')
const issuer = 'http://127.0.0.1'
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'RS256' })
  .setSubject(userId)
  .setIssuer(issuer)
  .setAudience('bench')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey)

const app = Fastify({ logger: false })

app.get('/me', async (request, reply) => {
  const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
  if (match?.[1] === undefined) return reply.code(401).send({ error: 'missing token' })
  let subject: string | undefined
  try {
    const { payload } = await jwtVerify(match[1], publicKey, { algorithms: ['RS256'], issuer, audience: 'bench' })
    subject = payload.sub
  } catch {
    return reply.code(401).send({ error: 'invalid token' })
  }
  const { rows } = await pool.query<{ id: string, name: string, email: string }>(
    'SELECT id, name, email FROM bench_users WHERE id = $1', [subject])
  const user = rows[0]
  if (user === undefined) return reply.code(401).send({ error: 'unknown user' })
  return { success: true, user }
})

await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
if (address === null || typeof address === 'string') throw new Error('no TCP address')

serveUntilStopped({ port: address.port, token }, async () => {
  await app.close()
  await pool.end()
})
