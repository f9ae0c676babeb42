import { configWarnings } from './derived-rules.ts'
import { loadConfig, type AppConfig } from './env.ts'
import { ConfigError, formatProblem, type ConfigProblem } from './problems.ts'

/**
 * The configuration for a process entry point (server, auth server, CLIs), checked
 * before anything starts: each invalid setting is printed on one line and the
 * process exits with status 1, without a stack trace. `checks` adds rules only
 * that entry point needs. With `warnings` (the portal, which runs the instances),
 * settings worth a word are printed to stderr and the start goes on.
 */
export function loadConfigOrExit (options: { checks?: Array<(config: AppConfig) => ConfigProblem[]>, warnings?: boolean } = {}): AppConfig {
  let config: AppConfig
  try {
    config = loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    exitWith(error.problems)
  }
  const problems = (options.checks ?? []).flatMap((check) => check(config))
  if (problems.length > 0) exitWith(problems)
  if (options.warnings === true) for (const warning of configWarnings(config)) console.error(`Configuration warning: ${warning}`)
  return config
}

/**
 * For a start-up step that can find a setting wrong only by trying (a port
 * already taken): a ConfigError ends the process the same way, one line per
 * problem and status 1; anything else is passed on.
 */
export async function exitOnConfigError<T> (step: Promise<T>): Promise<T> {
  try {
    return await step
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    exitWith(error.problems)
  }
}

/** Ends the process as an invalid setting does: one line per problem, status 1. */
export function exitWith (problems: ConfigProblem[]): never {
  for (const problem of problems) console.error(formatProblem(problem))
  process.exit(1)
}
