import type { Sql } from '../lib/sql.ts'
import type { ToolCallAudit } from './tool-registry.ts'
import { isDeferrable, isRecorded, recordToolCall, recordToolCalls, type ToolCallRow } from './tool-audit.ts'

/** A full buffer is written at once, without waiting for its timer. */
export const READ_AUDIT_BATCH_ROWS = 200
/** Rows queued or being written past which new ones are dropped (the database is down or far behind). */
export const READ_AUDIT_MAX_PENDING = 10_000

interface ErrorLog { error: (details: Record<string, unknown>, message: string) => void }

export interface ReadAuditBuffer {
  /** Queues a row; it is written within `delayMs`, or at once when the batch is full. */
  add: (row: ToolCallRow) => void
  /** Writes what is queued now and waits for every write under way. Never throws: a failed write is logged. */
  flush: () => Promise<void>
  /** Flushes; rows added afterwards are written one batch each, at once. */
  close: () => Promise<void>
  /** Rows queued or being written. */
  readonly pending: number
}

/**
 * Rows held in memory and written as one multi-row INSERT, when `batchRows` are
 * queued or `delayMs` after the first of them (one timer at a time, which
 * never keeps the process alive). A failed write is logged and its rows are
 * not retried; past `maxPending` rows new ones are dropped, with an error log.
 */
export function createReadAuditBuffer ({ write, log, delayMs, batchRows = READ_AUDIT_BATCH_ROWS, maxPending = READ_AUDIT_MAX_PENDING }: {
  write: (rows: ToolCallRow[]) => Promise<void>
  log: ErrorLog
  delayMs: number
  batchRows?: number
  maxPending?: number
}): ReadAuditBuffer {
  let queue: ToolCallRow[] = []
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let writingRows = 0
  let dropped = 0
  const writing = new Set<Promise<void>>()

  function writeQueued (): void {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (queue.length === 0) return
    const rows = queue
    queue = []
    writingRows += rows.length
    const done = write(rows)
      .catch((error: unknown) => log.error({ err: error, rows: rows.length }, 'MCP audit: a batch of read calls could not be recorded'))
      .finally(() => {
        writingRows -= rows.length
        writing.delete(done)
      })
    writing.add(done)
  }

  async function flush (): Promise<void> {
    writeQueued()
    await Promise.all(writing)
  }

  return {
    add (row) {
      if (queue.length + writingRows >= maxPending) {
        if (dropped++ === 0) log.error({ pending: maxPending }, 'MCP audit: too many read calls waiting to be recorded; dropping new ones')
        return
      }
      if (dropped > 0) {
        log.error({ dropped }, 'MCP audit: read calls were dropped, not recorded')
        dropped = 0
      }
      queue.push(row)
      if (closed || queue.length >= batchRows) writeQueued()
      else timer ??= setTimeout(writeQueued, delayMs).unref()
    },
    flush,
    async close () {
      closed = true
      await flush()
    },
    get pending () { return queue.length + writingRows }
  }
}

export interface ToolCallAuditTrail {
  /** The registry's audit (mcp/tool-registry.ts): a read-only tool's successful call is queued, any other written before the call answers. */
  record: ToolCallAudit
  /** Writes the queued read calls now (tests, shutdown). */
  flush: () => Promise<void>
  close: () => Promise<void>
}

/**
 * The audit trail of /api/mcp: which calls are kept (`reads`, MCP_AUDIT_READS), and
 * how: successful reads batched (MCP_AUDIT_FLUSH_MS), everything else one awaited INSERT.
 */
export function createToolCallAuditTrail ({ sql, reads, flushMs, log }: { sql: Sql, reads: 'all' | 'refused', flushMs: number, log: ErrorLog }): ToolCallAuditTrail {
  const buffer = createReadAuditBuffer({ write: async (rows) => recordToolCalls(sql, rows), log, delayMs: flushMs })
  return {
    async record (actor, call) {
      if (!isRecorded(call, reads)) return
      const at = new Date()
      if (isDeferrable(call)) buffer.add({ actor, call, at })
      else await recordToolCall(sql, actor, call, at)
    },
    flush: buffer.flush,
    close: buffer.close
  }
}
