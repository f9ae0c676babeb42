/**
 * What is wrong with one setting, told on one line: the variable, its value
 * (hidden when secret), what is allowed, and an example.
 */
export interface ConfigProblem {
  variable: string
  /** The value as given; `undefined` when unset. Shown through `displayValue`, never raw. */
  value: string | undefined
  /** Why this value is refused, when the allowed text alone does not say it (a derived rule). */
  reason?: string
  allowed: string
  example: string
  /** The value must not be echoed (passwords, keys, tokens). */
  secret?: boolean
}

export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: ConfigProblem[]

  constructor (problems: ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'))
    this.problems = problems
  }
}

/** `Invalid configuration: PORT="abc": allowed: an integer from 1 to 65535; example: PORT=3000` */
export function formatProblem (problem: ConfigProblem): string {
  const reason = problem.reason === undefined ? '' : ` (${problem.reason})`
  return `Invalid configuration: ${problem.variable}=${displayValue(problem)}${reason}; allowed: ${problem.allowed}; example: ${problem.variable}=${problem.example}`
}

/**
 * The value for a message: `(unset)`, `(hidden)` for a secret (with its length,
 * which is what a "too short" rule is about), a URL with its password hidden,
 * else the value quoted, so that spaces and control characters show and the
 * message stays on one line.
 */
export function displayValue (problem: Pick<ConfigProblem, 'value' | 'secret'>): string {
  const { value } = problem
  if (value === undefined) return '(unset)'
  if (problem.secret === true) return `(hidden, ${value.length} characters)`
  return JSON.stringify(hideUrlPassword(value))
}

/**
 * `postgres://user:pw@host/db` -> `postgres://user:(hidden)@host/db`, also without
 * the scheme (`user:pw@host`); text with no `user:password@` is left alone.
 */
export function hideUrlPassword (value: string): string {
  return value.replace(/^((?:[a-z][a-z0-9+.-]*:)?(?:\/\/)?[^:/@\s]*):.*@/i, '$1:(hidden)@')
}
