/**
 * A KubeConfig for the fake: one cluster (plain http on 127.0.0.1, hence `skipTLSVerify`,
 * which @kubernetes/client-node requires for http URLs), one user with a bearer token,
 * one context (optionally with a default namespace).
 */
import { KubeConfig } from '@kubernetes/client-node'

export interface KubeConfigOptions {
  token?: string
  /** The context's default namespace (KubernetesObjectApi uses it when an object has none). */
  namespace?: string
}

export function fakeKubeConfig (url: string, token: string, namespace?: string): KubeConfig {
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [{ name: 'fake-cluster', server: url, skipTLSVerify: true }],
    users: [{ name: 'fake-user', token }],
    contexts: [{ name: 'fake', cluster: 'fake-cluster', user: 'fake-user', ...(namespace === undefined ? {} : { namespace }) }],
    currentContext: 'fake'
  })
  return kc
}

/** The same as a kubeconfig file's text (JSON is YAML), for code that loads one with `loadFromString`/`loadFromFile`. */
export function fakeKubeconfigText (url: string, token: string, namespace?: string): string {
  return fakeKubeConfig(url, token, namespace).exportConfig()
}
