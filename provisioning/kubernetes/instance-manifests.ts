/** The per-instance objects around the Deployment: database Secret, filestore claim, Service, Ingress. */
import type { V1Ingress, V1PersistentVolumeClaim, V1Secret, V1Service } from '@kubernetes/client-node'
import type { InstanceSpec } from '../backend.ts'
import { dataClaimOf, dbSecretOf, ERP_PORT, instanceLabels, ISSUER_ANNOTATION, namespaceOf, selectorLabels, tlsSecretOf, workloadOf } from './names.ts'
import { gibibytes } from './quantities.ts'

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64')

function meta (spec: InstanceSpec, name: string) {
  return { name, namespace: namespaceOf(spec.tenantSubdomain), labels: instanceLabels(spec) }
}

/**
 * The env the ERP container gets through `envFrom`: the Odoo image reads HOST, PORT,
 * USER and PASSWORD. `data` (base64), not `stringData`: the API server folds stringData
 * into data, so applying stringData never reads back as what was applied.
 */
export function dbSecretManifest (spec: InstanceSpec): V1Secret {
  const db = spec.database
  const env: Record<string, string> = { HOST: db.host, PORT: String(db.port), USER: db.user, PASSWORD: db.password, ERP_DATABASE: db.name }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(spec, dbSecretOf(spec.subdomain)),
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(env).map(([key, value]) => [key, base64(value)]))
  }
}

export function dataClaimManifest (spec: InstanceSpec, storageClass: string | undefined): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta(spec, dataClaimOf(spec.subdomain)),
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(storageClass === undefined ? {} : { storageClassName: storageClass }),
      resources: { requests: { storage: gibibytes(spec.resources.storageGb) } }
    }
  }
}

export function serviceManifest (spec: InstanceSpec): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(spec, workloadOf(spec.subdomain)),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(spec.subdomain),
      ports: [{ name: 'http', port: ERP_PORT, targetPort: ERP_PORT, protocol: 'TCP' }]
    }
  }
}

export function ingressManifest (spec: InstanceSpec, ingressClass: string, tlsIssuer: string): V1Ingress {
  const name = workloadOf(spec.subdomain)
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { ...meta(spec, name), annotations: { [ISSUER_ANNOTATION]: tlsIssuer } },
    spec: {
      ingressClassName: ingressClass,
      tls: [{ hosts: [spec.host], secretName: tlsSecretOf(spec.subdomain) }],
      rules: [{
        host: spec.host,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: ERP_PORT } } } }] }
      }]
    }
  }
}
