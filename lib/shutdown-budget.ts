/**
 * The time a shutdown may take after the drain (SHUTDOWN_DELAY_SECONDS), phase by phase.
 * server.ts forces the exit only past the sum; the Kubernetes manifests' terminationGracePeriodSeconds
 * (deploy/kubernetes/base/portal.yaml) must exceed it with the drain added.
 */
/** Requests in flight when the server stops accepting. */
export const IN_FLIGHT_GRACE_MS = 10_000
/** Jobs in flight when the workers stop; one still running after that is retried once its heartbeat goes silent. */
export const JOBS_STOP_GRACE_MS = 10_000
/** The auth server child, the database pool and the embedded PostgreSQL. */
export const CLOSE_MARGIN_MS = 5_000

export const SHUTDOWN_GRACE_MS = IN_FLIGHT_GRACE_MS + JOBS_STOP_GRACE_MS + CLOSE_MARGIN_MS
