import { delimiter } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'

/**
 * The KubeConfig for production: the kubeconfig file(s) at `path` (KUBECONFIG; a list
 * separated by `:` is merged, the first current-context winning, as kubectl does), else
 * the in-cluster service account when KUBERNETES_SERVICE_HOST is set, else undefined:
 * the backend is not configured. Throws when a file cannot be read or names no cluster.
 */
export function loadKubeConfig (path?: string): KubeConfig | undefined {
  const kubeConfig = new KubeConfig()
  const files = (path ?? '').split(delimiter).filter((file) => file !== '')
  if (files.length > 0) {
    const [first, ...rest] = files as [string, ...string[]]
    kubeConfig.loadFromFile(first)
    for (const file of rest) {
      const more = new KubeConfig()
      more.loadFromFile(file)
      kubeConfig.mergeConfig(more, kubeConfig.currentContext !== undefined && kubeConfig.currentContext !== '')
    }
  } else if ((process.env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
    kubeConfig.loadFromCluster()
  } else {
    return undefined
  }
  if (kubeConfig.getCurrentCluster() === null) throw new Error(`kubeconfig ${path ?? '(in-cluster)'}: no current context with a cluster`)
  return kubeConfig
}
