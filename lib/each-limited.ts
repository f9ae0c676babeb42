/** Runs `work` on every item, at most `limit` at a time; resolves when all are done (a throw rejects). */
export async function eachLimited<T> (items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

/** `promise`, or `onTimeout()` thrown after `ms` (the promise's own work is left to finish or fail unheard). */
export async function within<T> (promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(onTimeout()), ms) })
  try {
    return await Promise.race([promise, expired])
  } finally {
    clearTimeout(timer)
  }
}
