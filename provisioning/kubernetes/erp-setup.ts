/**
 * The ERP's first start on Kubernetes: its server configuration (odoo.conf with the generated
 * master password) as a Secret mounted at /etc/odoo, and the one-off `odoo -d <db> -i base
 * --stop-after-init` as a Job in the tenant's namespace, with the instance's database Secret,
 * data claim and addons claim, run to its end before the Deployment is applied.
 */
import type { V1Secret } from '@kubernetes/client-node'
import type { InstanceSpec } from '../backend.ts'
import { OneOffFailedError, type OneOffRun } from '../one-off-run.ts'
import { ERP_CONFIG_PATH, erpInitialiseCommand, erpNeutralizeCommand, erpServerConfig } from '../erp/server-config.ts'
import type { KubeJobs } from './jobs.ts'
import { addonsClaimOf, configSecretOf, dataClaimOf, dbSecretOf, initJobOf, instanceLabels, namespaceOf, neutralizeJobOf, oneOffJobOf } from './names.ts'
import type { ResolvedOptions } from './options.ts'
import { mebibytes, millicores } from './quantities.ts'

/** The official image's entrypoint, which adds the database connection from HOST, PORT, USER and PASSWORD. */
const ENTRYPOINT = '/entrypoint.sh'
export const CONFIG_FILE = ERP_CONFIG_PATH.split('/').at(-1) ?? 'odoo.conf'
export const CONFIG_DIR = ERP_CONFIG_PATH.slice(0, ERP_CONFIG_PATH.lastIndexOf('/'))

export function configSecretManifest (spec: InstanceSpec, options: Pick<ResolvedOptions, 'addonsMountPath' | 'dataMountPath'>): V1Secret {
  if (spec.erp === undefined) throw new TypeError('spec.erp is required for the ERP configuration')
  const text = erpServerConfig({ masterPassword: spec.erp.masterPassword, database: spec.database.name, addonsPath: options.addonsMountPath, dataDir: options.dataMountPath })
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: configSecretOf(spec.subdomain), namespace: namespaceOf(spec.tenantSubdomain), labels: instanceLabels(spec) },
    type: 'Opaque',
    data: { [CONFIG_FILE]: Buffer.from(text, 'utf8').toString('base64') }
  }
}

/**
 * Runs the initialisation Job to its end and deletes it. A Job left by a crashed attempt is
 * waited for (and used if it succeeded); a failed or timed-out one is an error carrying its
 * log, and is deleted so that the retried provisioning starts a new one.
 */
export async function initialiseOnKubernetes (jobs: KubeJobs, spec: InstanceSpec, options: OneOffOptions): Promise<void> {
  if (spec.erp?.initialise !== true) return
  await runToItsEnd(jobs, spec, options, { name: initJobOf(spec.subdomain), command: erpInitialiseCommand(spec.database.name), what: 'database initialisation' })
}

/**
 * Runs the ERP's neutralization (`odoo neutralize -d <db>`) as a Job like the initialisation's
 * (the instance's image, database Secret and claims), to its end, then deletes it. A failed Job is
 * an error carrying its log; the instance must not start on the database then.
 */
export async function neutralizeOnKubernetes (jobs: KubeJobs, spec: InstanceSpec, options: OneOffOptions): Promise<void> {
  await runToItsEnd(jobs, spec, options, { name: neutralizeJobOf(spec.subdomain), command: erpNeutralizeCommand(spec.database.name), what: 'neutralization' })
}

/**
 * One ERP command line (ProvisioningBackend.runOneOff, e.g. a version upgrade) as a Job like the
 * neutralization's, `erp-<subdomain>-<run.name>`, from `run.image` or the instance's image: the end
 * of its log, or a OneOffFailedError carrying it. A Job an earlier attempt left is deleted first.
 */
export async function runOneOffOnKubernetes (jobs: KubeJobs, spec: InstanceSpec, options: OneOffOptions, run: OneOffRun): Promise<{ output: string }> {
  const name = oneOffJobOf(spec.subdomain, run.name)
  await jobs.remove(namespaceOf(spec.tenantSubdomain), name)
  return runToItsEnd(jobs, spec, { ...options, ...(run.image === undefined ? {} : { image: run.image }), ...(run.timeoutMs === undefined ? {} : { initTimeoutMs: run.timeoutMs }) },
    { name, command: run.command, what: run.what, tailLines: run.tailLines, failure: (message, log) => new OneOffFailedError(message, log) })
}

type OneOffOptions = Pick<ResolvedOptions, 'imageTemplate' | 'addonsMountPath' | 'dataMountPath' | 'initTimeoutMs' | 'initPollMs'> & { image: string }

/** A one-off run of the ERP's command line on the instance's database and volumes; the end of its log. */
async function runToItsEnd (jobs: KubeJobs, spec: InstanceSpec, options: OneOffOptions,
  run: { name: string, command: string[], what: string, tailLines?: number | undefined, failure?: (message: string, log: string) => Error }): Promise<{ output: string }> {
  const namespace = namespaceOf(spec.tenantSubdomain)
  const name = run.name
  const limits = { memory: mebibytes(spec.resources.memoryMb), cpu: millicores(spec.resources.cpuMillicores) }
  await jobs.create({
    namespace,
    name,
    labels: instanceLabels(spec),
    image: options.image,
    command: [ENTRYPOINT, ...run.command],
    envFromSecrets: [dbSecretOf(spec.subdomain)],
    volumes: [
      { claim: dataClaimOf(spec.subdomain), mountPath: options.dataMountPath },
      { claim: addonsClaimOf(spec.tenantSubdomain), mountPath: options.addonsMountPath, readOnly: true }
    ],
    resources: { limits, requests: { ...limits } },
    activeDeadlineSeconds: Math.ceil(options.initTimeoutMs / 1000),
    ttlSecondsAfterFinished: 3600
  })
  const outcome = await jobs.wait(namespace, name, { timeoutMs: options.initTimeoutMs, intervalMs: options.initPollMs })
  const output = await jobs.logs(namespace, name, { tailLines: run.tailLines ?? 20 }).catch(() => '')
  await jobs.remove(namespace, name)
  if (outcome.state === 'succeeded') return { output }
  const log = output.trim().slice(-800)
  const why = outcome.state === 'failed' ? `failed (${outcome.reason}: ${outcome.message})` : outcome.state === 'timeout' ? `did not finish within ${options.initTimeoutMs} ms` : 'was deleted before it finished'
  const message = `The ERP's ${run.what} Job ${namespace}/${name} ${why}${log === '' ? '' : `: ${log}`}`
  throw run.failure === undefined ? new Error(message) : run.failure(message, output)
}
