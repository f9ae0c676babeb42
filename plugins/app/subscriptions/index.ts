import fp from 'fastify-plugin'
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions.service.ts'
import { createTrialSweeper, TRIAL_EXPIRY_JOB, type SweepResult } from './trial-sweeper.job.ts'

declare module 'fastify' {
  interface FastifyInstance {
    subscriptions: SubscriptionsService & {
      /** Ends every trial that is due now, as the scheduled sweep does, and reports how many. */
      sweepTrialsNow: () => Promise<SweepResult>
    }
  }
}

/**
 * Subscriptions and their state machine, plus the trial sweep: a pg-boss
 * schedule (`trial-expiry`, every TRIAL_SWEEP_SECONDS) that ends expired
 * trials, run by one worker replica at a time.
 */
export default fp(async (fastify) => {
  const service = createSubscriptionsService({ activity: fastify.activity })
  const sweeper = createTrialSweeper({
    em: fastify.orm.em,
    subscriptions: service,
    log: fastify.log.child({ component: 'trial-sweeper' })
  })
  const scheduled = fastify.jobs.every(TRIAL_EXPIRY_JOB, fastify.config.TRIAL_SWEEP_SECONDS, sweeper.sweep)
  fastify.decorate('subscriptions', { ...service, sweepTrialsNow: scheduled.runNow })
}, { name: 'subscriptions', dependencies: ['env', 'orm', 'activity', 'jobs'] })
