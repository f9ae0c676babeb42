/**
 * Collects the failures out of tap's TAP stream, so a run can end by naming
 * them: a CI log is often read from its tail, far below the `not ok` lines.
 *
 * A failure is a `not ok` line at any depth, with the names of the subtests
 * it sits in (the top level is the test file) and its YAML diagnostic block,
 * without the keys that only repeat where it is (`at`, `source`, `compare`).
 */
export interface TapFailure {
  path: string[]
  diagnostic: string[]
}

const DIAGNOSTIC_LINES = 20
const LOCATION_KEYS = new Set(['at', 'source', 'compare'])

export class TapFailureCollector {
  readonly failures: TapFailure[] = []
  private pending = ''
  /** The name of the open subtest at each indent depth. */
  private readonly open: string[] = []
  private collecting: { failure: TapFailure, indent: number, skippingKey: boolean } | undefined

  push (chunk: string): void {
    const lines = (this.pending + chunk).split('\n')
    this.pending = lines.pop() ?? ''
    for (const line of lines) this.line(line)
  }

  end (): TapFailure[] {
    if (this.pending !== '') this.line(this.pending)
    this.pending = ''
    return this.failures
  }

  private line (raw: string): void {
    const line = raw.replace(/\r$/, '')
    const indent = (/^ */.exec(line)?.[0].length ?? 0)
    const depth = Math.floor(indent / 4)
    const text = line.slice(indent)

    if (this.collecting !== undefined) {
      if (indent > this.collecting.indent && text !== '---') {
        if (text === '...') { this.collecting = undefined; return }
        this.diagnosticLine(this.collecting, line.slice(this.collecting.indent + 2))
        return
      }
      if (text !== '---') this.collecting = undefined
      else return
    }

    const subtest = /^# Subtest: (.*)$/.exec(text)
    if (subtest !== null) {
      this.open.length = depth
      this.open[depth] = subtest[1] ?? ''
      return
    }
    const notOk = /^not ok \d+(?: - (.*?))?(?: # (?:time=.*|TODO.*|SKIP.*))?$/.exec(text)
    if (notOk !== null) {
      const path = [...this.open.slice(0, depth), notOk[1] ?? '(unnamed)']
      // A failed parent is reported after its failed children; keep only the leaves.
      const isParentOfEarlier = this.failures.some(f => f.path.length > path.length && path.every((name, i) => f.path[i] === name))
      const failure: TapFailure = { path, diagnostic: [] }
      if (!isParentOfEarlier) this.failures.push(failure)
      this.collecting = { failure, indent, skippingKey: false }
    }
  }

  private diagnosticLine (collecting: NonNullable<typeof this.collecting>, text: string): void {
    const key = /^([\w-]+):/.exec(text)
    if (key !== null) collecting.skippingKey = LOCATION_KEYS.has(key[1] ?? '')
    if (!collecting.skippingKey && collecting.failure.diagnostic.length < DIAGNOSTIC_LINES) collecting.failure.diagnostic.push(text)
  }
}

export function formatFailures (failures: TapFailure[]): string {
  return failures.map(({ path, diagnostic }) =>
    [`not ok: ${path.join(' > ')}`, ...diagnostic.map(line => `    ${line}`)].join('\n')
  ).join('\n')
}
