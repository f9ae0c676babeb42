/** Label selectors (each operator), field selectors and paging, through the client's list calls. */
import t from 'tap'
import { CoreV1Api } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { namespaceManifest, rejection } from './client-helpers.ts'
import { parseLabelSelector } from './selectors.ts'

const NS = 'erp-acme'
const LABELS: Record<string, Record<string, string>> = {
  a: { tenant: 'acme', tier: 'web', env: 'prod', 'erp.example/instance': 'main' },
  b: { tenant: 'acme', tier: 'db' },
  c: { tenant: 'globex', tier: 'web', env: 'staging', replicas: '3' },
  d: { other: 'x', replicas: '1' }
}

t.test('label selectors through listNamespacedSecret', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  for (const [name, labels] of Object.entries(LABELS)) kube.seed({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS, labels } })
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const names = async (labelSelector: string) => (await core.listNamespacedSecret({ namespace: NS, labelSelector })).items.map((s) => s.metadata?.name)

  const cases: Array<[string, string[]]> = [
    ['tenant=acme', ['a', 'b']],
    ['tenant==acme', ['a', 'b']],
    ['tenant!=acme', ['c', 'd']],
    ['env', ['a', 'c']],
    ['!env', ['b', 'd']],
    ['tier in (web,db)', ['a', 'b', 'c']],
    ['tier in (web, db)', ['a', 'b', 'c']],
    ['tier notin (web)', ['b', 'd']],
    ['tenant=acme,tier=web', ['a']],
    ['tenant in (acme,globex),!env', ['b']],
    ['erp.example/instance=main', ['a']],
    ['replicas>2', ['c']],
    ['replicas<2', ['d']],
    ['', ['a', 'b', 'c', 'd']]
  ]
  for (const [selector, expected] of cases) t.same(await names(selector), expected, `"${selector}"`)
  t.same(await names('tenant=nobody'), [])

  for (const bad of ['tier in ()', 'tenant acme', 'tenant=ac me', '=x', 'replicas>two']) {
    t.match(await rejection(names(bad)), { code: 400, reason: 'BadRequest', message: /unable to parse requirement/ }, `"${bad}" is a 400`)
  }
})

t.test('the matcher, directly: != and notin also match objects without the label', async (t) => {
  t.ok(parseLabelSelector('a!=1')({}))
  t.ok(parseLabelSelector('a notin (1)')({}))
  t.notOk(parseLabelSelector('a in (1)')({}))
  t.notOk(parseLabelSelector('a=1')(undefined))
  t.ok(parseLabelSelector(undefined)(undefined))
})

t.test('field selectors on metadata.name/namespace; paging with limit and continue', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  kube.seed(namespaceManifest('erp-globex'))
  for (const name of ['a', 'b', 'c']) kube.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } })
  kube.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'erp-globex' } })
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  t.same((await core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'metadata.name=b' })).items.map((c) => c.metadata?.name), ['b'])
  t.same((await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name=a' })).items.map((c) => c.metadata?.namespace), [NS, 'erp-globex'], 'across namespaces')
  t.match(await rejection(core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'data.x=1' })), { code: 400, message: 'field label not supported: data.x' })

  const first = await core.listNamespacedConfigMap({ namespace: NS, limit: 2 })
  t.same(first.items.map((c) => c.metadata?.name), ['a', 'b'])
  t.equal(first.metadata?.remainingItemCount, 1)
  t.equal(first.items[0]?.kind, undefined, 'list items carry no kind/apiVersion, as from a real server')
  const rest = await core.listNamespacedConfigMap({ namespace: NS, limit: 2, _continue: first.metadata?._continue })
  t.same(rest.items.map((c) => c.metadata?.name), ['c'])
  t.equal(rest.metadata?._continue, undefined)
})
