import type { JobWithMetadata } from 'pg-boss'
import type { PasswordResetRequestData } from './password-reset.queue.ts'

/** Works a reset request: e-mails a link when the address has an active account, else does nothing. */
export function createPasswordResetJob (deps: { issueByEmail: (email: string) => Promise<boolean> }) {
  return async function run (job: JobWithMetadata<PasswordResetRequestData>): Promise<{ sent: boolean }> {
    return { sent: await deps.issueByEmail(job.data.email) }
  }
}
