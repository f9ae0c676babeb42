import { Type } from 'typebox'
import { defineError } from '../lib/errors.ts'
import { requireAdmin } from '../lib/roles.ts'
import type { ToolContext } from './tools/tool.ts'

export const ConfirmationRequired = defineError('CONFIRMATION_REQUIRED', 'Ask the person first, then pass the instance\'s subdomain in `confirm`', 400)
export const ConfirmationRefused = defineError('CONFIRMATION_REFUSED', 'confirm does not match the instance\'s subdomain: nothing was changed', 400)

/** The `confirm` argument of a destructive tool: optional in the schema, so a call without it gets CONFIRMATION_REQUIRED saying what to pass. */
export const confirmArgument = (what = 'once the person agreed') => Type.Optional(Type.String({
  minLength: 1,
  maxLength: 40,
  description: `The instance's subdomain, typed again ${what}; without it nothing happens and the answer says what to pass`
}))

export interface DestructiveIntent {
  tool: string
  /** As the service words its admin rule, e.g. "delete backups". */
  adminAction: string
  /** What is lost, e.g. "deleting backup #4 removes its archive for good". */
  consequence: string
  /** The tool's own existence check (e.g. the backup), so its not-found answers as without a confirmation. */
  exists?: () => Promise<unknown>
}

/**
 * The gate of a destructive tool (MCP's stand-in for a person's confirmation: the stateless
 * endpoint cannot ask the client itself, docs/agents.md): the person's role first, then that
 * the instance and what else is named exist, then `confirm` must be the instance's subdomain. A refusal changes nothing.
 * `confirm` absent: CONFIRMATION_REQUIRED; another value: CONFIRMATION_REFUSED (naming the subdomain, as REST's restore does).
 */
export async function requireConfirmation (context: ToolContext, instanceId: number, confirm: string | undefined, intent: DestructiveIntent): Promise<void> {
  const { app, scope } = context
  requireAdmin(scope.actor, intent.adminAction)
  const { subdomain } = await app.instances.get(scope, instanceId)
  await intent.exists?.()
  if (confirm === undefined) {
    throw ConfirmationRequired(`${intent.consequence}. Ask the person first; if they agree, call ${intent.tool} again with \`confirm\` set to the instance's subdomain (get_instance shows it). Nothing was changed.`, { field: 'confirm' })
  }
  if (confirm !== subdomain) {
    throw ConfirmationRefused(`confirm must be the instance's subdomain "${subdomain}": ${intent.consequence}. Nothing was changed.`, { field: 'confirm' })
  }
}
