import fp from 'fastify-plugin'
import { createSubscriptionsService, type SubscriptionsService } from './subscriptions.service.ts'
import { createTrialSweeper, type SweepResult } from './trial-sweeper.ts'

declare module 'fastify' {
  interface FastifyInstance {
    subscriptions: SubscriptionsService & {
      /** Ends every trial that is due now, as the background sweeper does, and reports how many. */
      sweepTrialsNow: () => Promise<SweepResult>
    }
  }
}

export interface SubscriptionsPluginOptions {
  /** Overrides TRIAL_SWEEP_SECONDS (tests make it short). */
  trialSweepIntervalMs?: number
}

/**
 * Subscriptions and their state machine, plus the trial sweeper: a periodic
 * in-process job that ends expired trials, safe with several replicas, which
 * runs while the app is up and stops (waiting for a sweep in progress) on close.
 */
export default fp<SubscriptionsPluginOptions>(async (fastify, options) => {
  const service = createSubscriptionsService({ activity: fastify.activity })
  const sweeper = createTrialSweeper({
    em: fastify.orm.em,
    subscriptions: service,
    log: fastify.log.child({ component: 'trial-sweeper' }),
    intervalMs: options.trialSweepIntervalMs ?? fastify.config.TRIAL_SWEEP_SECONDS * 1000
  })
  fastify.decorate('subscriptions', { ...service, sweepTrialsNow: sweeper.sweepNow })
  fastify.addHook('onReady', async () => { sweeper.start() })
  fastify.addHook('onClose', async () => { await sweeper.stop() })
}, { name: 'subscriptions', dependencies: ['env', 'orm', 'activity'] })
