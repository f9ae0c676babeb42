/**
 * A refusal because the hosting platform is not ready, in the tenant's words
 * (the wording of job-failures.ts), with the operator's side kept on the error
 * as `operator`: the error handlers (REST and MCP) log 5xx errors with `err`,
 * so that detail reaches the log once, with the request id, and never the answer.
 */
import type { AppError } from '../../../lib/errors.ts'

/** What the operator needs: the backend's or driver's error and how to fix it (settings, hosts, images). */
export interface OperatorDetail {
  reason: string
  hint?: string
}

/** "Backups cannot run right now: …": `what` is the plural the tenant asked for. */
export function platformNotReadyMessage (what: string): string {
  return `${what} cannot run right now: the hosting platform is not ready for them. The operator has been told.`
}

/** The error, carrying the operator's detail for the log (not part of the answer's body). */
export function withOperatorDetail<E extends AppError> (error: E, operator: OperatorDetail): E & { operator: OperatorDetail } {
  return Object.assign(error, { operator })
}
