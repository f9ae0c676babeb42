/**
 * Provision, start, stop, restart and remove one instance. Every write is idempotent:
 * server-side apply of the whole desired object (a second apply changes nothing),
 * deletes that treat "already gone" as done.
 */
import type { InstanceSpec } from '../backend.ts'
import type { OneOffRun } from '../one-off-run.ts'
import { ensureClaim } from './claims.ts'
import { deploymentManifest, restartPatch, type DeploymentSettings } from './deployment-manifest.ts'
import { configSecretManifest, initialiseOnKubernetes, neutralizeOnKubernetes, runOneOffOnKubernetes } from './erp-setup.ts'
import { imageFor } from '../image-template.ts'
import { dataClaimManifest, dbSecretManifest, ingressManifest, serviceManifest } from './instance-manifests.ts'
import type { KubeJobs } from './jobs.ts'
import type { KubeApi } from './kube-api.ts'
import { configSecretOf, dataClaimOf, dbSecretOf, initJobOf, namespaceOf, neutralizeJobOf, ONE_OFF_RUNS, oneOffJobOf, RESTARTED_AT_ANNOTATION, workloadOf } from './names.ts'
import type { ResolvedOptions } from './options.ts'
import type { TenantOps } from './tenant-ops.ts'

export interface InstanceOps {
  provision: (spec: InstanceSpec, options?: { start?: boolean }) => Promise<void>
  start: (spec: InstanceSpec) => Promise<void>
  stop: (spec: InstanceSpec) => Promise<void>
  restart: (spec: InstanceSpec) => Promise<void>
  remove: (spec: InstanceSpec) => Promise<void>
  neutralize: (spec: InstanceSpec) => Promise<void>
  runOneOff: (spec: InstanceSpec, run: OneOffRun) => Promise<{ output: string }>
  changeImage: (spec: InstanceSpec) => Promise<void>
}

export function createInstanceOps (api: KubeApi, tenants: TenantOps, jobs: KubeJobs, options: ResolvedOptions, now: () => Date = () => new Date()): InstanceOps {
  const manager = options.fieldManager
  const settings: DeploymentSettings = options
  const applyDeployment = (spec: InstanceSpec, replicas: 0 | 1) => api.apply(deploymentManifest(spec, replicas, settings), manager)
  const readDeployment = (spec: InstanceSpec) => api.readDeployment(namespaceOf(spec.tenantSubdomain), workloadOf(spec.subdomain))

  async function provision (spec: InstanceSpec, { start = true }: { start?: boolean } = {}): Promise<void> {
    // Normally there already (ensureTenant); applying identical objects again changes nothing.
    await tenants.ensureTenantBasics(spec.tenantSubdomain, spec.tenantId)
    await Promise.all([
      api.apply(dbSecretManifest(spec), manager),
      ...(spec.erp === undefined ? [] : [api.apply(configSecretManifest(spec, options), manager)]),
      ensureClaim(api, dataClaimManifest(spec, options.storageClass), manager)
    ])
    // First start: the ERP's database is initialised by a one-off Job before the server runs.
    await initialiseOnKubernetes(jobs, spec, { ...options, image: imageFor(options.imageTemplate, spec.erpVersion) })
    await applyDeployment(spec, start ? 1 : 0)
    await Promise.all([
      api.apply(serviceManifest(spec), manager),
      api.apply(ingressManifest(spec, options.ingressClass, options.tlsIssuer), manager)
    ])
  }

  return {
    provision,
    /** The ERP's neutralization of the instance's database, as a Job run to its end (erp-setup.ts). */
    async neutralize (spec: InstanceSpec) {
      await neutralizeOnKubernetes(jobs, spec, { ...options, image: imageFor(options.imageTemplate, spec.erpVersion) })
    },
    /** One ERP command line as a Job run to its end (erp-setup.ts), e.g. a version upgrade. */
    async runOneOff (spec: InstanceSpec, run: OneOffRun) {
      return runOneOffOnKubernetes(jobs, spec, { ...options, image: imageFor(options.imageTemplate, spec.erpVersion) }, run)
    },
    /** Nothing to do: the Deployment takes the spec's image when it is applied at the next start. */
    async changeImage () {},
    // A Deployment that is gone (a provision that failed half-way, someone's kubectl delete) is provisioned again.
    async start (spec) {
      if (await readDeployment(spec) === undefined) await provision(spec)
      else await applyDeployment(spec, 1)
    },
    async stop (spec) {
      if (await readDeployment(spec) !== undefined) await applyDeployment(spec, 0)
    },
    async restart (spec) {
      const live = await readDeployment(spec)
      if (live === undefined) await provision(spec)
      else if ((live.spec?.replicas ?? 1) === 0) await applyDeployment(spec, 1)
      else await api.apply(restartPatch(spec, now(), RESTARTED_AT_ANNOTATION), `${manager}-restart`)
    },
    async remove (spec) {
      const namespace = namespaceOf(spec.tenantSubdomain)
      const name = workloadOf(spec.subdomain)
      await api.remove('Ingress', namespace, name)
      await api.remove('Service', namespace, name)
      await api.remove('Deployment', namespace, name)
      await jobs.remove(namespace, initJobOf(spec.subdomain))
      await jobs.remove(namespace, neutralizeJobOf(spec.subdomain))
      for (const run of ONE_OFF_RUNS) await jobs.remove(namespace, oneOffJobOf(spec.subdomain, run))
      await api.remove('Secret', namespace, dbSecretOf(spec.subdomain))
      await api.remove('Secret', namespace, configSecretOf(spec.subdomain))
      await api.remove('PersistentVolumeClaim', namespace, dataClaimOf(spec.subdomain))
    }
  }
}
