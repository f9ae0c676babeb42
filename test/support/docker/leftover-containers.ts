/**
 * Containers whose test process is gone: a file killed by tap's timeout (or a run killed by hand)
 * never reaches its teardown, and the ERPs it started keep running, each with a health check every
 * second. A dozen of them slow every Docker test after them until those time out too, and leave
 * more. `npm test` therefore sweeps them before the run and every few seconds while it runs.
 *
 * Each test container names the process that made it:
 * - `erp.test-run=<run>-<pid>-<random>` (newTestRun, for the containers a test creates itself);
 * - an instance's subdomain `<prefix>-<pid in base 36>-<8 hex>` (uniqueSubdomain, for what the
 *   service provisions in a test), on the `erp.subdomain` label; its data volume goes with it.
 * Only containers whose process no longer exists are removed: a concurrent run keeps its own.
 */
import type Docker from 'dockerode'
import { TEST_RUN_LABEL } from './engine.ts'

const RUN_ID = /-(\d+)-[0-9a-f]+$/
const SUBDOMAIN = /-([0-9a-z]{1,5})-[0-9a-f]{8}$/
/** Linux's largest possible pid (pid_max's limit). */
const PID_MAX = 4_194_304

/** The pid a test container names, or undefined when it names none (not a test's container). */
export function creatorPid (labels: Record<string, string>): number | undefined {
  const run = labels[TEST_RUN_LABEL]
  const fromRun = run === undefined ? null : RUN_ID.exec(run)
  if (fromRun !== null) return Number(fromRun[1])
  const subdomain = labels['erp.subdomain']
  const fromSubdomain = subdomain === undefined ? null : SUBDOMAIN.exec(subdomain)
  const pid = fromSubdomain === null ? Number.NaN : Number.parseInt(fromSubdomain[1]!, 36)
  return pid > 0 && pid <= PID_MAX ? pid : undefined
}

export function processAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}

/** Removes the test containers (and instance data volumes) whose process is gone; returns their names. */
export async function removeLeftoverContainers (docker: Docker, alive = processAlive): Promise<string[]> {
  const found = [
    ...await docker.listContainers({ all: true, filters: { label: [TEST_RUN_LABEL] } }),
    ...await docker.listContainers({ all: true, filters: { label: ['erp.subdomain'] } })
  ]
  const removed: string[] = []
  for (const info of new Map(found.map((entry) => [entry.Id, entry])).values()) {
    const pid = creatorPid(info.Labels)
    if (pid === undefined || alive(pid)) continue
    try {
      await docker.getContainer(info.Id).remove({ force: true, v: true })
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode
      if (status !== 404 && status !== 409) throw error // gone already, or its removal is under way
      continue
    }
    removed.push(info.Names[0]?.replace(/^\//, '') ?? info.Id)
    const subdomain = info.Labels['erp.subdomain']
    if (subdomain !== undefined) await docker.getVolume(`erp-${subdomain}-data`).remove().catch(() => {})
  }
  return removed
}
