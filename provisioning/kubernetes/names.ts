/**
 * What every object of a tenant or an instance is called and labelled. The label
 * selectors observe/observeAll list with are built from the same constants.
 */

/** The `app.kubernetes.io/managed-by` value on everything this backend creates. */
export const MANAGED_BY = 'erp-portal'
export const APP_NAME = 'erp'
/** The ERP's HTTP port in the container, the Service and the Ingress backend. */
export const ERP_PORT = 8069
export const CONTAINER_NAME = 'erp'
export const RESTARTED_AT_ANNOTATION = 'erp.portal/restartedAt'
export const ISSUER_ANNOTATION = 'cert-manager.io/cluster-issuer'

export const LABEL = {
  managedBy: 'app.kubernetes.io/managed-by',
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  instanceId: 'erp.portal/instance-id',
  tenant: 'erp.portal/tenant',
  tenantId: 'erp.portal/tenant-id'
} as const

export const namespaceOf = (tenantSubdomain: string): string => `erp-${tenantSubdomain}`
export const addonsClaimOf = (tenantSubdomain: string): string => `addons-${tenantSubdomain}`
export const QUOTA_NAME = 'erp-quota'

/** Deployment, Service and Ingress share this name. */
export const workloadOf = (subdomain: string): string => `erp-${subdomain}`
export const dbSecretOf = (subdomain: string): string => `erp-${subdomain}-db`
/** The ERP server's configuration file (odoo.conf, with the master password), mounted at /etc/odoo. */
export const configSecretOf = (subdomain: string): string => `erp-${subdomain}-config`
/** The one-off Job that initialises the ERP's database at first start. */
export const initJobOf = (subdomain: string): string => `erp-${subdomain}-init`
/** The one-off Job that neutralizes the ERP's database (a staging copy, before it starts). */
export const neutralizeJobOf = (subdomain: string): string => `erp-${subdomain}-neutralize`
/** A one-off Job of the ERP's command line named `run` (ProvisioningBackend.runOneOff), e.g. a version upgrade's. */
export const oneOffJobOf = (subdomain: string, run: string): string => `erp-${subdomain}-${run}`
/** The one-off runs an instance may have; removed with it. */
export const ONE_OFF_RUNS = ['upgrade'] as const
export const dataClaimOf = (subdomain: string): string => `erp-${subdomain}-data`
export const tlsSecretOf = (subdomain: string): string => `erp-${subdomain}-tls`

/** The Deployment's selector: immutable, so only what never changes for a subdomain. */
export function selectorLabels (subdomain: string): Record<string, string> {
  return { [LABEL.name]: APP_NAME, [LABEL.instance]: subdomain }
}

export function instanceLabels (spec: { subdomain: string, instanceUid: string, tenantSubdomain: string }): Record<string, string> {
  return {
    ...selectorLabels(spec.subdomain),
    [LABEL.managedBy]: MANAGED_BY,
    [LABEL.instanceId]: spec.instanceUid,
    [LABEL.tenant]: spec.tenantSubdomain
  }
}

export function tenantLabels (tenantSubdomain: string, tenantId: string): Record<string, string> {
  return { [LABEL.managedBy]: MANAGED_BY, [LABEL.tenantId]: tenantId, [LABEL.tenant]: tenantSubdomain }
}

/** Every ERP Deployment this backend manages in a namespace. */
export const MANAGED_DEPLOYMENTS = `${LABEL.name}=${APP_NAME},${LABEL.managedBy}=${MANAGED_BY}`
/** Every ERP pod in a namespace (pods carry the template labels). */
export const ERP_PODS = `${LABEL.name}=${APP_NAME}`
