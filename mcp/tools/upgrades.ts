import { Type } from 'typebox'
import { BigInt53, Int4 } from '../../schemas/common.ts'
import { UpgradeBody } from '../../schemas/upgrades.ts'
import { confirmArgument, requireConfirmation } from '../confirmation.ts'
import { watchOf } from './job-watches.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const instanceId = BigInt53({ minimum: 1, description: 'The instance id, an integer (from list_instances)' })
const upgradeId = BigInt53({ minimum: 1, description: 'The upgrade id, an integer (from list_upgrades or upgrade_instance)' })

/** Version upgrades (docs/upgrades.md): the same service as POST /api/instances/{id}/upgrade and its reads. */
export const upgradeTools = [
  defineTool({
    name: 'upgrade_instance',
    title: 'Upgrade an instance to the next ERP version',
    description: 'Admin only. mode `test`: a staging copy of the instance is made and upgraded; the instance itself is not touched (no confirmation). ' +
      'mode `apply`: DESTRUCTIVE for the running instance: a backup is taken, the instance is stopped, upgraded in place and started on the target version; ' +
      'any failure restores the backup and starts it on its old version (`rolled_back`). Ask the person first and pass the instance\'s subdomain in `confirm` for apply ' +
      '(CONFIRMATION_REQUIRED without it, CONFIRMATION_REFUSED for another value; nothing changes either way). Answers the upgrade `queued`; poll get_upgrade until ' +
      '`succeeded`, `failed` or `rolled_back`, then read `failed_modules`, `log_tail` and `incompatible_addons`. UPGRADE_SKIPS_A_VERSION (one major version at a time), ' +
      'UPGRADE_NOT_NEWER, UPGRADE_VERSION_NOT_OFFERED, UPGRADE_NOT_CONFIGURED, UPGRADE_IN_PROGRESS, INSTANCE_BUSY (not running or stopped).',
    input: Type.Object({
      instance_id: instanceId,
      target_version: UpgradeBody.properties.target_version,
      mode: UpgradeBody.properties.mode,
      confirm: confirmArgument('for mode apply, once the person agreed')
    }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (context, { instance_id: id, target_version: target, mode, confirm }) => {
      const { app, scope } = context
      if (mode === 'apply') {
        await requireConfirmation(context, id, confirm, {
          tool: 'upgrade_instance',
          adminAction: 'upgrade instances',
          consequence: `Upgrading the instance to ${target} stops it, changes its database for the new version and starts it again; on failure it is restored from a backup taken just before`
        })
      }
      return { upgrade: await app.upgrades.request(scope, id, { target_version: target, mode }) }
    },
    follow: ({ instance_id: id }, first) => watchOf({ kind: 'upgrade', instanceId: id, upgradeId: (first.upgrade as { id: number }).id }, first)
  }),

  defineTool({
    name: 'list_upgrades',
    title: 'List an instance\'s version upgrades',
    description: 'The instance\'s upgrades (tests and applied ones), newest first, with state, versions, duration and report.',
    input: Type.Object({
      instance_id: instanceId,
      page: Type.Optional(Int4({ minimum: 1, description: 'Page number, from 1 (default 1)' })),
      per_page: Type.Optional(Int4({ minimum: 1, maximum: 100, description: 'Upgrades per page, at most 100 (default 25)' }))
    }, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id, page = 1, per_page: perPage = 25 }) => ({
      ...await app.upgrades.list(scope, id, { page, per_page: perPage }), page, per_page: perPage
    })
  }),

  defineTool({
    name: 'get_upgrade',
    title: 'One version upgrade, with its report',
    description: 'State and step, duration, the end of the upgrade command\'s output (`log_tail`), the modules the ERP reported failing (`failed_modules`), ' +
      'and the company\'s synced addons not written for the target version (`incompatible_addons`).',
    input: Type.Object({ instance_id: instanceId, upgrade_id: upgradeId }, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }, { instance_id: id, upgrade_id: upgrade }) => ({ upgrade: await app.upgrades.get(scope, id, upgrade) })
  })
]
