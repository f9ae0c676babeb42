import type { AppConfig } from '../config/env.ts'
import type { ConfigProblem } from '../config/problems.ts'
import { loadKubeConfig } from './kubernetes/load-kube-config.ts'

/**
 * What only setting the backends up would find wrong, found at start instead:
 * a kubeconfig that cannot be read or names no cluster.
 */
export function provisioningProblems (config: AppConfig): ConfigProblem[] {
  if (!config.instanceBackends.includes('kubernetes')) return []
  try {
    loadKubeConfig(config.KUBECONFIG)
    return []
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? ''
    return [{
      variable: 'KUBECONFIG',
      value: config.KUBECONFIG,
      reason: reason.replace(/;$/, ''),
      allowed: 'readable kubeconfig files with a current context, or unset inside a cluster (or INSTANCE_BACKENDS without kubernetes)',
      example: '/etc/erp-portal/kubeconfig'
    }]
  }
}
