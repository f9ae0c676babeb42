import type { FastifyBaseLogger } from 'fastify'

export interface PeriodicJob<T> {
  /** One awaited run, for tests and operators; beside the background loop (jobs claim rows with SKIP LOCKED). */
  runNow: () => Promise<T>
  /** A background run soon; a kick during a run asks for one more run right after it. */
  kick: () => void
  /** Runs every interval, never overlapping itself, without keeping the process alive. */
  start: () => void
  /** Stops the timer and waits for every run in flight. */
  stop: () => Promise<void>
  /** True once stop() was called: a long run checks it between batches. */
  readonly stopped: boolean
}

/**
 * The loop of an in-process background job (mail delivery, trial expiry, …):
 * timer, coalesced kicks, error logging, and a stop that waits for work in flight.
 */
export function createPeriodicJob<T> ({ name, intervalMs, run, log }: {
  name: string
  intervalMs: number
  run: () => Promise<T>
  log: FastifyBaseLogger
}): PeriodicJob<T> {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  let background = false
  let again = false
  const inFlight = new Set<Promise<unknown>>()

  function track<R> (promise: Promise<R>): Promise<R> {
    inFlight.add(promise)
    return promise.finally(() => inFlight.delete(promise))
  }

  function tick (): void {
    if (stopped) return
    if (background) {
      again = true
      return
    }
    background = true
    void track((async () => {
      do {
        again = false
        try {
          await run()
        } catch (error) {
          if (!stopped) log.warn({ err: error }, `${name} failed; will try again`)
        }
      } while (again && !stopped)
      background = false
    })())
  }

  return {
    runNow: () => track(run()),
    kick: () => {
      if (background) again = true
      else setImmediate(tick)
    },
    start: () => {
      if (stopped || timer !== undefined) return
      timer = setInterval(tick, intervalMs)
      timer.unref()
    },
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearInterval(timer)
      await Promise.allSettled([...inFlight])
    },
    get stopped () {
      return stopped
    }
  }
}
