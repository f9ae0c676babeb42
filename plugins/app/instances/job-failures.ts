/**
 * What a failed instance job tells the tenant, and whether another attempt can
 * help. The errors of the backends and the database name hosts, settings and
 * engine internals: those go to the log; the instance's status message and its
 * activity name the problem in the tenant's words.
 */
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { DockerEngineError } from '../../../provisioning/docker/engine-calls.ts'
import { KubernetesApiError } from '../../../provisioning/kubernetes/api-errors.ts'
import { isUnretryable } from '../../../provisioning/unretryable.ts'
import type { InstanceAction } from './instance-states.ts'

export interface JobFailure {
  /** For the instance's status_message and its activity. */
  tenantMessage: string
  /** False when another attempt would meet the same refusal. */
  retryable: boolean
}

const VERBS: Record<InstanceAction, string> = {
  provision: 'create the instance',
  start: 'start the instance',
  restart: 'restart the instance',
  stop: 'stop the instance',
  delete: 'delete the instance'
}

const NOUNS: Record<InstanceAction, string> = {
  provision: 'Creating the instance',
  start: 'Starting the instance',
  restart: 'Restarting the instance',
  stop: 'Stopping the instance',
  delete: 'Deleting the instance'
}

/** An error raised below us: a socket, a database server. */
function isInfrastructure (error: unknown): boolean {
  const fields = (error ?? {}) as { syscall?: unknown, severity?: unknown }
  return typeof fields.syscall === 'string' || typeof fields.severity === 'string'
}

/** A message that names the platform's insides: an address, a URL, a path, a setting. */
const INTERNAL_WORDS = /\b\d{1,3}(\.\d{1,3}){3}\b|[a-z]+:\/\/|(^|\s)\/[\w.-]+\/|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/

export function describeFailure (error: unknown, action: InstanceAction): JobFailure {
  if (isUnretryable(error)) return { tenantMessage: error.tenantMessage, retryable: false }
  if (error instanceof BackendUnavailableError) {
    return { tenantMessage: `The hosting platform did not answer, so the platform could not ${VERBS[action]}.`, retryable: true }
  }
  if (error instanceof DockerEngineError) {
    if (error.statusCode === 400) return { tenantMessage: `The hosting platform refused the instance's configuration, so it could not ${VERBS[action]}; support has to correct it.`, retryable: false }
    return { tenantMessage: `The hosting platform could not ${VERBS[action]}.`, retryable: true }
  }
  if (error instanceof KubernetesApiError) {
    // Invalid objects and a missing permission of the service's account: the next attempt would be refused alike.
    if (error.code === 400 || error.code === 422 || error.code === 403) {
      return { tenantMessage: `The hosting platform refused the instance's configuration, so it could not ${VERBS[action]}; support has to correct it.`, retryable: false }
    }
    return { tenantMessage: `The hosting platform could not ${VERBS[action]}.`, retryable: true }
  }
  const message = error instanceof Error ? error.message : String(error)
  if (isInfrastructure(error) || INTERNAL_WORDS.test(message)) return { tenantMessage: `The platform could not ${VERBS[action]} because of an internal error.`, retryable: true }
  return { tenantMessage: message, retryable: true }
}

/** The status message while another attempt is pending. */
export function retryingMessage (failure: JobFailure, action: InstanceAction, attempt: number, attempts: number): string {
  return `${NOUNS[action]} failed (attempt ${attempt} of ${attempts}) and is being retried: ${failure.tenantMessage}`
}
