import t from 'tap'
import { signup } from '../support/accounts.ts'
import { rpc, startMcpFixture } from '../support/mcp.ts'
import { captureLog } from '../support/log-capture.ts'
import { ACCESS_LOG_MESSAGE } from '../../lib/access-log.ts'

// /api/mcp answers on the raw response (the reply is hijacked): its access line comes all the same.
t.test('an MCP call writes one access line with the agent\'s tenant, and no token', async (t) => {
  const { lines, logger } = captureLog('info')
  const { app, connectAgent } = await startMcpFixture(t, {}, { logger })
  const admin = await signup(app)
  const { accessToken } = await connectAgent(admin, 'Logged agent')

  const answer = await rpc(app, accessToken, 'tools/list')
  t.equal(answer.statusCode, 200)
  const requestLines = lines.filter((line) => line.request_id === answer.headers['x-request-id'])
  t.equal(requestLines.length, 1)
  t.match(requestLines[0], { msg: ACCESS_LOG_MESSAGE, method: 'POST', route: '/api/mcp', status: 200, tenant_id: admin.user.tenant_id })
  t.type(requestLines[0]?.ms, 'number')

  const refused = await rpc(app, 'not-a-token', 'tools/list')
  t.equal(refused.statusCode, 401)
  t.match(lines.filter((line) => line.request_id === refused.headers['x-request-id'] && line.msg === ACCESS_LOG_MESSAGE), [{ route: '/api/mcp', status: 401 }])
  t.notOk(JSON.stringify(lines).includes(accessToken), 'the access token is in no line')
})
