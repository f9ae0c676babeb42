/** The instance's Deployment: one ERP pod, replaced (never doubled) on change. */
import type { V1Deployment, V1Probe } from '@kubernetes/client-node'
import type { InstanceSpec } from '../backend.ts'
import { imageFor } from '../image-template.ts'
import { CONFIG_DIR } from './erp-setup.ts'
import { addonsClaimOf, configSecretOf, CONTAINER_NAME, dataClaimOf, dbSecretOf, ERP_PORT, instanceLabels, namespaceOf, selectorLabels, workloadOf } from './names.ts'
import { mebibytes, millicores } from './quantities.ts'

export interface DeploymentSettings {
  imageTemplate: string
  healthPath: string
  addonsMountPath: string
  dataMountPath: string
  fsGroup: number
  /** SIGTERM, then this long before the kubelet kills the ERP. */
  stopGraceSeconds: number
}

function probe (path: string, extra: Partial<V1Probe>): V1Probe {
  return { httpGet: { path, port: ERP_PORT }, timeoutSeconds: 5, ...extra }
}

/**
 * `replicas` is always part of what this backend applies (1 running, 0 stopped), with the
 * same field manager, so no other writer owns it and a provision never fights a stop.
 * Recreate, because the data claim is ReadWriteOnce: a second pod on another node
 * could never mount it, and two ERP processes must not share one filestore anyway.
 */
export function deploymentManifest (spec: InstanceSpec, replicas: 0 | 1, settings: DeploymentSettings): V1Deployment {
  const limits = { memory: mebibytes(spec.resources.memoryMb), cpu: millicores(spec.resources.cpuMillicores) }
  const labels = instanceLabels(spec)
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: workloadOf(spec.subdomain), namespace: namespaceOf(spec.tenantSubdomain), labels },
    spec: {
      replicas,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selectorLabels(spec.subdomain) },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: settings.stopGraceSeconds,
          securityContext: { fsGroup: settings.fsGroup },
          containers: [{
            name: CONTAINER_NAME,
            image: imageFor(settings.imageTemplate, spec.erpVersion),
            ports: [{ name: 'http', containerPort: ERP_PORT, protocol: 'TCP' }],
            envFrom: [{ secretRef: { name: dbSecretOf(spec.subdomain) } }],
            env: [{ name: 'ERP_WORKERS', value: String(spec.resources.workers) }],
            resources: { limits, requests: { ...limits } },
            // All three read the health path, which the ERP answers only once its database is
            // initialised: a pod runs only after the first-start Job (provision) or the restore Job
            // (a new instance is made at 0 replicas) has filled it. The startup probe holds the
            // other two back while the ERP loads.
            startupProbe: probe(settings.healthPath, { periodSeconds: 10, failureThreshold: 60 }),
            readinessProbe: probe(settings.healthPath, { periodSeconds: 10, failureThreshold: 3 }),
            livenessProbe: probe(settings.healthPath, { periodSeconds: 20, failureThreshold: 6 }),
            volumeMounts: [
              { name: 'addons', mountPath: settings.addonsMountPath, readOnly: true },
              { name: 'data', mountPath: settings.dataMountPath },
              // The server's odoo.conf (master password, no database manager) where the image reads it.
              ...(spec.erp === undefined ? [] : [{ name: 'config', mountPath: CONFIG_DIR, readOnly: true }])
            ]
          }],
          volumes: [
            { name: 'addons', persistentVolumeClaim: { claimName: addonsClaimOf(spec.tenantSubdomain), readOnly: true } },
            { name: 'data', persistentVolumeClaim: { claimName: dataClaimOf(spec.subdomain) } },
            ...(spec.erp === undefined ? [] : [{ name: 'config', secret: { secretName: configSecretOf(spec.subdomain), defaultMode: 0o444 } }])
          ]
        }
      }
    }
  }
}

/** What restart() applies, under its own field manager, so that provision (which never applies annotations) leaves it alone. */
export function restartPatch (spec: Pick<InstanceSpec, 'subdomain' | 'tenantSubdomain'>, at: Date, annotation: string): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: workloadOf(spec.subdomain), namespace: namespaceOf(spec.tenantSubdomain) },
    spec: { template: { metadata: { annotations: { [annotation]: at.toISOString() } } } } as V1Deployment['spec']
  }
}
