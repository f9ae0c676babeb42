import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createInstanceTransitions } from '../instances/instance-transitions.ts'
import { parseUpgradeCommands } from './upgrade-commands.ts'
import { createUpgradeJob } from './upgrade.job.ts'
import { UPGRADE_QUEUE } from './upgrade.queue.ts'
import { createUpgradesService, type UpgradesService } from './upgrades.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Version upgrades of instances: tested on a staging copy, or applied with a rollback point. */
    upgrades: UpgradesService
  }
}

/**
 * Version upgrades (docs/upgrades.md): the service behind the REST routes and MCP tools, and the
 * job that runs the configured upgrade command (ERP_UPGRADE_COMMANDS) and rolls back on failure.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const parsed = parseUpgradeCommands(config.ERP_UPGRADE_COMMANDS)
  // The configuration check (config/derived-rules.ts) refused an invalid value before this runs.
  const commands = 'commands' in parsed ? parsed.commands : new Map()
  const transitions = createInstanceTransitions({ activity: fastify.activity })
  const service = createUpgradesService({
    jobs: fastify.jobs,
    activity: fastify.activity,
    transitions,
    backends: fastify.instances.backends,
    runners: fastify.backups.runners,
    backups: fastify.backups.archives,
    staging: fastify.staging,
    erpVersions: config.erpVersions,
    commands
  })
  const job = createUpgradeJob({
    em: orm.em,
    activity: fastify.activity,
    transitions,
    lifecycle: fastify.instances.lifecycle,
    jobs: fastify.jobs,
    commands,
    imageTemplate: config.ERP_IMAGE,
    timeoutMs: config.ERP_UPGRADE_TIMEOUT_SECONDS * 1000,
    log: fastify.log.child({ component: 'upgrade-jobs' })
  })
  // An upgrade holds its instance `upgrading`: one whose job ended without finishing goes to `error`.
  fastify.instances.sweepAbandoned(UPGRADE_QUEUE.name, ['upgrading'])
  await fastify.jobs.define(UPGRADE_QUEUE, job)
  fastify.decorate('upgrades', service)
}, { name: 'upgrades', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances', 'backups', 'staging'] })
