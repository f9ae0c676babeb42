/**
 * Ours: the real app (bench/bench-app.ts) on the already migrated bench database.
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL and BENCH_POOL_MAX; it
 * reports its port. The bearer token comes from the real signup route, called
 * by the parent over HTTP.
 */
import { startBenchApp } from './bench-app.ts'
import { serveUntilStopped } from './child-process.ts'

const { port, close } = await startBenchApp({
  // The bench's auth server (bench/oauth-ours-server.ts, issuer http://127.0.0.1): /api/mcp fetches its JWKS.
  AUTH_PORT: Number(process.env.BENCH_AUTH_PORT ?? 3001),
  JOB_WORKERS: false,
  // The metrics scenario's sample, taken when the run starts, stays recent until it ends.
  METRICS_INTERVAL_SECONDS: 3600
})

serveUntilStopped({ port }, close)
