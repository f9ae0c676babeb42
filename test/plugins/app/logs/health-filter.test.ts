import t from 'tap'
import { healthCheckPaths, withoutHealthChecks } from '../../../../plugins/app/logs/health-filter.ts'
import type { LogBackend, LogLine } from '../../../../provisioning/log-backend.ts'
import { isPassedHealthCheck } from '../../../../provisioning/log-lines.ts'
import { accessLine, eventLine, healthLine } from '../../../support/odoo-log-lines.ts'

const PATHS = ['/web/health']

t.test('a passed health check\'s access line is recognised; everything else is not', async (t) => {
  t.ok(isPassedHealthCheck(healthLine(1), PATHS), 'Odoo\'s werkzeug line of GET /web/health 200')
  t.ok(isPassedHealthCheck(accessLine(1, '/web/health', 200, 'HEAD'), PATHS), 'HEAD too')
  t.ok(isPassedHealthCheck('10.42.0.1 - - [28/Nov/2026 10:00:01] "GET /web/health?probe=1 HTTP/1.1" 200 - 2 0.001 0.003', PATHS), 'with a query string, without the prefix')
  t.notOk(isPassedHealthCheck(healthLine(1, 500), PATHS), 'a failing check says something: kept')
  t.notOk(isPassedHealthCheck(accessLine(1, '/web/login'), PATHS), 'another page')
  t.notOk(isPassedHealthCheck(accessLine(1, '/web/healthy'), PATHS), 'a path that only starts like it')
  t.notOk(isPassedHealthCheck(accessLine(1, '/web/health', 200, 'POST'), PATHS), 'a POST is no probe')
  t.notOk(isPassedHealthCheck(eventLine('GET /web/health is what the probe asks'), PATHS), 'a line that mentions it')
  t.notOk(isPassedHealthCheck(accessLine(1, '/healthz'), PATHS), 'a path not probed here')
})

t.test('the probed paths come from the settings of both backends', async (t) => {
  t.same(healthCheckPaths({ ERP_HEALTH_PATH: '/web/health', ERP_HEALTHCHECK: 'curl -fsS http://127.0.0.1:8069/web/health || exit 1' }), ['/web/health'])
  t.same(healthCheckPaths({ ERP_HEALTH_PATH: '/web/health', ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/healthz || exit 1' }), ['/web/health', '/healthz'])
  t.same(healthCheckPaths({ ERP_HEALTH_PATH: '/status', ERP_HEALTHCHECK: 'pg_isready' }), ['/status'], 'a check without a URL adds none')
})

t.test('the tail is counted without the health checks: the backend is asked for more until it is full', async (t) => {
  const all: LogLine[] = []
  for (let i = 1; i <= 10; i++) {
    all.push({ time: `2026-11-28T10:00:${String(i).padStart(2, '0')}.000000000Z`, stream: 'stderr', line: eventLine(`event ${i}`) })
    for (let j = 0; j < 9; j++) all.push({ time: `2026-11-28T10:00:${String(i).padStart(2, '0')}.${j + 1}00000000Z`, stream: 'stderr', line: healthLine(i) })
  }
  const asked: number[] = []
  const backend: LogBackend = {
    readLogs: async (_ref, { tail }) => { asked.push(tail); return all.slice(-tail) },
    followLogs: async () => ({ stop () {} })
  }
  const filtered = withoutHealthChecks(backend, PATHS)
  const ref = { instanceUid: 'u', subdomain: 's', tenantSubdomain: 'c' }
  t.same((await filtered.readLogs(ref, { tail: 3 }))?.map((l) => l.line), [8, 9, 10].map((i) => eventLine(`event ${i}`)))
  t.same(asked, [3, 12, 48], 'asked four times more each round, until three were left')
  t.same((await filtered.readLogs(ref, { tail: 50 }))?.length, 10, 'all there is, when there are fewer')
})
