/** What a backend's one-off runs (ProvisioningBackend.runOneOff, backend.ts) take and how they fail. */

/** One ERP command line run to its end beside an instance (ProvisioningBackend.runOneOff). */
export interface OneOffRun {
  /** The run's name in the one-off's name (`erp-<subdomain>-<name>`), e.g. `upgrade`. */
  name: string
  command: string[]
  /** Default: the instance's own image. */
  image?: string
  /** What the run is, for messages (`upgrade`). */
  what: string
  /** Default: the backend's bound on the database initialisation. */
  timeoutMs?: number
  /** How many lines of output to keep (default 20). */
  tailLines?: number
}

/** A one-off run that did not succeed; `output` is the end of what it printed. */
export class OneOffFailedError extends Error {
  override name = 'OneOffFailedError'
  readonly output: string
  constructor (message: string, output: string) {
    super(message)
    this.output = output
  }
}
