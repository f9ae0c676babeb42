import { defineError } from '../../../lib/errors.ts'

// What the auth server gets back from the consume route; it turns each into a readable page.
export const HandoffCodeInvalid = defineError('HANDOFF_CODE_INVALID', 'This sign-in code is unknown, already used or expired; start the connection again', 400)
export const HandoffSecretInvalid = defineError('HANDOFF_SECRET_INVALID', 'Missing or wrong X-OAuth-Handoff-Secret header', 401)
export const GrantNotFound = defineError('GRANT_NOT_FOUND', 'No connected agent with this id', 404)
export const AgentLevelAboveRole = defineError('AGENT_LEVEL_ABOVE_ROLE', 'Your role does not let you give an agent this level', 403)
export const GrantAccessByAgent = defineError('GRANT_ACCESS_BY_AGENT', 'An agent cannot change what agents may do: the person does it in the portal', 403)
