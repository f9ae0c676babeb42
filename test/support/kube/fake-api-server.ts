/**
 * A contract-faithful fake Kubernetes API server for tests (not a cluster): plain node:http on
 * 127.0.0.1, spoken to by the real @kubernetes/client-node through a KubeConfig that differs
 * from production only in its server URL. See test/support/kube/README.md for what it honours.
 *
 *   const kube = await startFakeKubeApiServer({ readyDelayMs: 50 })
 *   const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
 *   …
 *   await kube.close()
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { readBody, send } from './http-io.ts'
import type { AddressInfo } from 'node:net'
import type { KubeConfig } from '@kubernetes/client-node'
import type { ApiRequest } from './api-request.ts'
import { ClusterControllers } from './controllers.ts'
import { discoveryDocument } from './discovery.ts'
import { FaultInjector, type Fault } from './faults.ts'
import { JobController, type JobEnding } from './jobs.ts'
import { fakeKubeConfig, fakeKubeconfigText, type KubeConfigOptions } from './kubeconfig.ts'
import { isObject, type JsonObject } from './merge.ts'
import { PodLogs } from './pod-logs.ts'
import { renderPod, type SimPod } from './pods.ts'
import { BarePods } from './bare-pods.ts'
import { DockerPodRuntime, type PodRuntimeOptions } from './pod-runtime.ts'
import { isPodProxyPath, podProxy } from './pod-proxy.ts'
import { METRICS_GROUP_PATH, PodMetricsApi, type ContainerUsage } from './pod-metrics.ts'
import { QuotaTracker } from './quota.ts'
import { DeploymentController } from './readiness.ts'
import { ErpDoubles } from './erp-double.ts'
import { configuredDatabase, databasesFilledBy, ErpDatabases, probesHealth, upgradedBy, type ErpTiming } from './erp-database.ts'
import { serviceProxy } from './service-proxy.ts'
import { findByName, type KubeObject, type ResourceType } from './resources.ts'
import { decodeBody, parseResourcePath, route } from './router.ts'
import { failure, KubeError, type StatusBody } from './status.ts'
import { ObjectStore, toWire } from './store.ts'
import { create } from './write-handlers.ts'
import type { WriteContext } from './write-path.ts'

export type { Fault } from './faults.ts'
export type { KubeObject } from './resources.ts'

export interface FakeKubeApiServerOptions {
  /** The bearer token the server accepts (default: a random one). */
  token?: string
  /** How long new Pods take to turn ready after the write that created them (default 0: at the next request). */
  readyDelayMs?: number
  /**
   * How long a Job's pod runs once it is Running before it exits 0 by itself, as a real one-off
   * does (e.g. an ERP's database initialisation). Default: never; tests end it with completeJob
   * or failJob.
   */
  jobRunMs?: number
  /** How long a deleted Namespace stays Terminating before it and its contents go (default 0). */
  namespaceDeletionDelayMs?: number
  /** The storage class a claim without one gets (default `standard`; null: none). */
  defaultStorageClass?: string | null
  /** The KubeConfig context's default namespace. */
  namespace?: string
  /** Whether metrics-server is installed (default true); without it metrics.k8s.io answers 404. */
  metricsServer?: boolean
  /** Run bare pods' containers for real on the local Docker engine, claims backed by host folders (pod-runtime.ts); default: simulated, nothing listens. */
  podRuntime?: PodRuntimeOptions
  /** How long the ERP's module installs and the registry reload after each take (default: the fixture's timing). */
  erpTiming?: ErpTiming
}

export interface RecordedRequest { method: string, path: string, query: Record<string, string>, contentType: string, status: number }

export interface FakeKubeApiServer {
  url: string
  token: string
  /** A @kubernetes/client-node KubeConfig pointing at the server with the right token. */
  kubeConfig: KubeConfig
  /** The same as kubeconfig file text. */
  kubeconfigText: string
  /** Another KubeConfig (e.g. with a wrong token, or a default namespace). */
  makeKubeConfig: (options?: KubeConfigOptions) => KubeConfig
  /** Stored objects as the API returns them (managedFields included); Pods are synthesised. */
  get: (kind: string, namespace: string | undefined, name: string) => KubeObject | undefined
  list: (kind: string, namespace?: string) => KubeObject[]
  /** Creates an object directly (validated, defaulted; field manager `seed`), bypassing auth and faults. */
  seed: (object: KubeObject) => KubeObject
  resourceVersion: () => string
  /** Deployment readiness controls. */
  setReady: (namespace: string, deployment: string) => void
  holdNotReady: (namespace: string, deployment: string, options?: { reason?: string }) => void
  releaseHold: (namespace: string, deployment: string) => void
  /** The Job's running pod exits 0 and the Job completes (throws when it has no running pod). */
  completeJob: (namespace: string, job: string) => void
  /** The Job's running pod exits non-zero (default 1): replaced within `backoffLimit`, else the Job fails. */
  failJob: (namespace: string, job: string, ending?: JobEnding) => void
  /** New bare pods of the namespace stay Pending (`ImagePullBackOff` by default) until released. */
  holdPods: (namespace: string, options?: { reason?: string }) => void
  releasePods: (namespace: string) => void
  /** Bare pods whose container the pod runtime could not start, and why. */
  podRuntimeErrors: string[]
  /** Log text for a pod, or for every pod of a deployment or Job; per container optionally. */
  setPodLogs: (namespace: string, podOrDeployment: string, text: string, options?: { container?: string }) => void
  /** A line written now (newline added): stored, and sent to every open follow (follow=true) of those logs. */
  appendPodLog: (namespace: string, podOrDeployment: string, line: string, options?: { container?: string }) => void
  /** Log follows open now. */
  podLogFollowers: () => number
  /** PodMetrics usage (metrics.k8s.io) of a pod, or of every pod of a deployment; per container optionally. */
  setPodUsage: (namespace: string, podOrDeployment: string, usage: ContainerUsage, options?: { container?: string }) => void
  /** Installs or removes metrics-server. */
  setMetricsServer: (installed: boolean) => void
  /**
   * The ERP behind each instance Service, reached through the Service proxy subresource: which
   * calls it got, the administrator password a database holds, and whether it answers at all.
   */
  erp: Pick<ErpDoubles, 'calls' | 'adminPassword' | 'configParameter' | 'setAnswering'> & {
    /** Whether the database holds Odoo's tables (a first-start or restore Job completed, or `initialise`). */
    initialised: (database: string) => boolean
    initialise: (database: string) => void
    /** The ERP version an upgrade Job (`-u … --stop-after-init`) brought the database to; undefined since it was made or restored. */
    version: (database: string) => string | undefined
    /** The database's modules and their states, as ir.module.module search_read answers. */
    modules: (database: string) => Array<{ id: number, name: string, state: string }>
    /** A module's state changed in the ERP itself (not through the control plane). */
    setModuleState: (database: string, name: string, state: string) => void
    /** The database's next button_immediate_uninstall answers this UserError. */
    failNextUninstall: (database: string, message: string) => void
  }
  failNext: (fault: Fault) => void
  pendingFaults: () => number
  /** Every API request answered, in order (auth failures and injected faults included). */
  requests: RecordedRequest[]
  /** Bugs in the fake itself (answered as 500): a test should expect this to stay empty. */
  internalErrors: Error[]
  close: () => Promise<void>
}

export async function startFakeKubeApiServer (options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
  const token = options.token ?? `fake-${crypto.randomUUID()}`
  const store = new ObjectStore()
  let clusterIPs = 0
  const ctx: WriteContext = {
    store,
    now: () => new Date(),
    defaults: {
      allocateClusterIP: () => { clusterIPs++; return `10.96.${Math.floor(clusterIPs / 250) % 250}.${(clusterIPs % 250) + 1}` },
      defaultStorageClass: options.defaultStorageClass === null ? undefined : options.defaultStorageClass ?? 'standard'
    }
  }
  const deployments = new DeploymentController(ctx, options.readyDelayMs ?? 0)
  const jobs = new JobController(ctx, options.readyDelayMs ?? 0, options.jobRunMs)
  const runtime = options.podRuntime === undefined ? undefined : new DockerPodRuntime(options.podRuntime)
  const quota = new QuotaTracker(store, (ns) => [...deployments.pods(ns), ...jobs.activePods(ns), ...bare.activePods(ns)].map((p) => p.template))
  const bare = new BarePods(ctx, options.readyDelayMs ?? 0, quota, runtime)
  const allPods = (ns?: string): SimPod[] => [...deployments.pods(ns), ...jobs.pods(ns), ...bare.pods(ns)]
  const render = (pod: SimPod): JsonObject => (bare.owns(pod) ? bare.render(pod) : renderPod(pod))
  deployments.refusePod = (ns, template, prefix) => quota.refusePod(ns, template, prefix)
  jobs.refusePod = (ns, template, prefix) => quota.refusePod(ns, template, prefix)
  ctx.admit = (type, namespace, object, before) => quota.admitObject(type, namespace, object, before)
  const controllers = new ClusterControllers(ctx, quota, options.namespaceDeletionDelayMs ?? 0)
  const logs = new PodLogs()
  const podMetrics = new PodMetricsApi()
  podMetrics.installed = options.metricsServer ?? true
  const faults = new FaultInjector()
  const erp = new ErpDoubles(new ErpDatabases(options.erpTiming))
  const secretOf = (namespace: string) => (name: string) => store.get(findByName('Secret'), namespace, name)?.object
  const databaseOf = (namespace: string, template: JsonObject): string | undefined => configuredDatabase(template, secretOf(namespace))
  deployments.probe = (namespace, template) => !probesHealth(template) || erp.databases.healthy(databaseOf(namespace, template))
  jobs.onComplete = (namespace, template) => {
    for (const database of databasesFilledBy(template, secretOf(namespace))) {
      erp.databases.initialise(database)
      erp.databases.setVersion(database, undefined)
    }
    const upgraded = upgradedBy(template)
    if (upgraded !== undefined) erp.databases.setVersion(upgraded.database, upgraded.version)
  }
  const requests: RecordedRequest[] = []
  const internalErrors: Error[] = []
  const tick = (): void => { deployments.tick(); jobs.tick(); bare.tick(); controllers.tick() }
  const findPod = (ns: string, name: string): SimPod | undefined => allPods(ns).find((p) => p.name === name)
  const source = {
    list: (type: ResourceType, ns?: string) => type.kind === 'Pod' ? allPods(ns).map(render) : store.list(type, ns).map(toWire),
    get: (type: ResourceType, ns: string | undefined, name: string) => {
      if (type.kind === 'Pod') { const pod = findPod(ns ?? '', name); return pod === undefined ? undefined : render(pod) }
      const entry = store.get(type, ns, name)
      return entry === undefined ? undefined : toWire(entry)
    },
    resourceVersion: () => store.currentResourceVersion()
  }

  async function handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake')
    const method = (req.method ?? 'GET').toUpperCase()
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    const record: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType, status: 0 }
    const answer = (code: number, body: unknown, type?: string, headers?: Record<string, string>): void => { record.status = code; send(res, code, body, type, headers) }
    try {
      if (['/healthz', '/livez', '/readyz'].includes(url.pathname)) { answer(200, 'ok', 'text/plain'); return }
      requests.push(record)
      const raw = await readBody(req)
      if (req.headers.authorization !== `Bearer ${token}`) throw failure(401, 'Unauthorized')
      const fault = faults.take(method, url.pathname)
      if (fault !== undefined) throw fault
      tick()
      if (isPodProxyPath(url.pathname)) {
        record.status = await podProxy({ find: findPod, runsForReal: (ns, name) => bare.address(ns, name).listening }, method, url, req.headers, raw, res)
        return
      }
      if (url.pathname.startsWith(METRICS_GROUP_PATH)) {
        const result = podMetrics.handle(method, url.pathname, url.searchParams, allPods, new Date())
        answer(result.code, result.body); return
      }
      const proxied = serviceProxy({ getService: (ns, name) => source.get(findByName('Service'), ns, name), pods: allPods, erp, databaseOf: (pod) => databaseOf(pod.namespace, pod.template) }, method, url.pathname, raw)
      if (proxied !== undefined) { const reply = await proxied; answer(reply.code, reply.body, reply.contentType); return }
      const discovery = method === 'GET' ? discoveryDocument(url.pathname.replace(/\/$/, ''), `127.0.0.1:${port}`) : undefined
      if (discovery !== undefined) { answer(200, discovery); return }
      const apiRequest: ApiRequest = { method, ...parseResourcePath(url.pathname), query: url.searchParams, body: decodeBody(raw, contentType), contentType, userAgent: req.headers['user-agent'] }
      const result = route({ ctx, source, logs, findPod, barePods: bare, deletingJobs: (policy) => { jobs.deleting(policy) } }, apiRequest)
      if (result.follow !== undefined) {
        record.status = result.code
        res.writeHead(result.code, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' })
        res.write(String(result.body))
        const stop = result.follow((text) => res.write(text))
        res.on('close', stop)
        return
      }
      answer(result.code, result.body, result.contentType)
    } catch (error) {
      if (error instanceof KubeError) { answer(error.status.code, error.status, 'application/json', error.headers); return }
      internalErrors.push(error as Error)
      const status: StatusBody = failure(500, `fake kube-apiserver bug: ${(error as Error).stack ?? String(error)}`).status
      answer(500, status)
    }
  }

  for (const name of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) { // as every cluster has them
    create(ctx, { method: 'POST', type: findByName('Namespace'), query: new URLSearchParams({ fieldManager: 'kube-apiserver' }), body: { metadata: { name } }, contentType: 'application/json', userAgent: undefined })
  }

  const server = createServer((req, res) => { void handle(req, res) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  const wire = (object: JsonObject | undefined): KubeObject | undefined => object as KubeObject | undefined

  return {
    url,
    token,
    kubeConfig: fakeKubeConfig(url, token, options.namespace),
    kubeconfigText: fakeKubeconfigText(url, token, options.namespace),
    makeKubeConfig: (o = {}) => fakeKubeConfig(url, o.token ?? token, o.namespace ?? options.namespace),
    get: (kind, namespace, name) => { tick(); return wire(source.get(findByName(kind), namespace, name)) },
    list: (kind, namespace) => { tick(); return source.list(findByName(kind), namespace) as KubeObject[] },
    seed: (object) => {
      tick()
      const type = findByName(String(object.kind))
      const meta = isObject(object.metadata) ? object.metadata : {}
      const namespace = type.namespaced ? String(meta.namespace ?? 'default') : undefined
      const body = create(ctx, { method: 'POST', type, namespace, query: new URLSearchParams({ fieldManager: 'seed' }), body: structuredClone(object), contentType: 'application/json', userAgent: undefined }).body
      return body as KubeObject
    },
    resourceVersion: () => { tick(); return store.currentResourceVersion() },
    setReady: (namespace, deployment) => { tick(); deployments.setReady(namespace, deployment) },
    holdNotReady: (namespace, deployment, o = {}) => { deployments.hold(namespace, deployment, o.reason) },
    releaseHold: (namespace, deployment) => { deployments.release(namespace, deployment) },
    holdPods: (namespace, o = {}) => { bare.hold(namespace, o.reason) },
    releasePods: (namespace) => { bare.release(namespace) },
    podRuntimeErrors: runtime?.errors ?? [],
    completeJob: (namespace, job) => { jobs.complete(namespace, job) },
    failJob: (namespace, job, ending) => { jobs.fail(namespace, job, ending) },
    setPodLogs: (namespace, podOrDeployment, text, o = {}) => { logs.set(namespace, podOrDeployment, text, o.container) },
    appendPodLog: (namespace, podOrDeployment, line, o = {}) => { logs.append(namespace, podOrDeployment, line, o.container) },
    podLogFollowers: () => logs.followers(),
    setPodUsage: (namespace, podOrDeployment, usage, o = {}) => { podMetrics.setUsage(namespace, podOrDeployment, usage, o.container) },
    setMetricsServer: (installed) => { podMetrics.installed = installed },
    erp: {
      calls: erp.calls,
      adminPassword: (namespace, service, database) => erp.adminPassword(namespace, service, database),
      configParameter: (namespace, service, database, name) => erp.configParameter(namespace, service, database, name),
      setAnswering: (namespace, service, answering) => { erp.setAnswering(namespace, service, answering) },
      initialised: (database) => erp.databases.initialised(database),
      initialise: (database) => { erp.databases.initialise(database) },
      version: (database) => erp.databases.version(database),
      modules: (database) => erp.databases.searchRead(database, []),
      setModuleState: (database, name, state) => { erp.databases.setModuleState(database, name, state) },
      failNextUninstall: (database, message) => { erp.databases.failNextUninstall(database, message) }
    },
    failNext: (fault) => { faults.add(fault) },
    pendingFaults: () => faults.pending(),
    requests,
    internalErrors,
    close: async () => {
      await bare.close()
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error === undefined ? resolve() : reject(error)))
      })
    }
  }
}

/** Starts the fake for a tap test and closes it in the test's teardown. */
export async function fakeKubeApiServer (t: { teardown: (fn: () => unknown) => void }, options?: FakeKubeApiServerOptions): Promise<FakeKubeApiServer> {
  const server = await startFakeKubeApiServer(options)
  t.teardown(() => server.close())
  return server
}
