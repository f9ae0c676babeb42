import t from 'tap'
import { build } from '../../../support/build.ts'
import { createTestDatabase } from '../../../support/database.ts'

const login = (login: string, remoteAddress: string) => ({
  method: 'POST' as const, url: '/api/login', payload: { login, password: 'wrong password' }, remoteAddress
})

t.test('login is limited per IP', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_IP: '3' } })
  for (let i = 0; i < 3; i++) t.equal((await app.inject(login(`user${i}@example.com`, '10.0.0.1'))).statusCode, 401)
  const limited = await app.inject(login('user9@example.com', '10.0.0.1'))
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60)
  t.equal((await app.inject(login('user9@example.com', '10.0.0.2'))).statusCode, 401, 'another IP is not affected')
})

t.test('login is limited per account across IPs', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_ACCOUNT: '2' } })
  t.equal((await app.inject(login('target@example.com', '10.0.1.1'))).statusCode, 401)
  t.equal((await app.inject(login('TARGET@example.com', '10.0.1.2'))).statusCode, 401)
  const limited = await app.inject(login('target@example.com', '10.0.1.3'))
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal((await app.inject(login('bystander@example.com', '10.0.1.3'))).statusCode, 401, 'other accounts are not affected')
})

t.test('signup is limited per IP and per e-mail', async (t) => {
  const { app } = await build(t, { env: { SIGNUP_LIMIT_PER_IP: '2', SIGNUP_LIMIT_PER_ACCOUNT: '1' } })
  const body = (i: number, email = `s${i}@example.com`) => ({ company: 'C', subdomain: `sub-${i}`, name: 'N', email, password: 'long enough password' })
  t.equal((await app.inject({ method: 'POST', url: '/api/signup', payload: body(1), remoteAddress: '10.0.2.1' })).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: '/api/signup', payload: body(2), remoteAddress: '10.0.2.1' })).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: '/api/signup', payload: body(3), remoteAddress: '10.0.2.1' })).statusCode, 429, 'per IP')
  t.equal((await app.inject({ method: 'POST', url: '/api/signup', payload: body(4, 's1@example.com'), remoteAddress: '10.0.2.9' })).statusCode, 429, 'per e-mail')
})

t.test('counters are shared by every replica on the same database', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const env = { LOGIN_LIMIT_PER_IP: '2' }
  const replicaA = await build(t, { databaseUrl, env })
  const replicaB = await build(t, { databaseUrl, env })
  t.equal((await replicaA.app.inject(login('a@example.com', '10.0.3.1'))).statusCode, 401)
  t.equal((await replicaB.app.inject(login('b@example.com', '10.0.3.1'))).statusCode, 401)
  t.equal((await replicaA.app.inject(login('c@example.com', '10.0.3.1'))).statusCode, 429)
  t.equal((await replicaB.app.inject(login('d@example.com', '10.0.3.1'))).statusCode, 429)
})
