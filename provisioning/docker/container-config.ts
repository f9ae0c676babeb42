/** What the backend asks the engine for: the container create body for one instance (pure). */
import { join } from 'node:path'
import type Docker from 'dockerode'
import type { InstanceSpec } from '../backend.ts'
import { imageFor as imageForVersion } from '../image-template.ts'
import { assertDnsLabel, containerName, dataVolumeName, ERP_PORT, LABELS } from './names.ts'
import type { HealthCheckOptions, ResolvedOptions } from './options.ts'

/** The Docker host's own address from inside a container (with ExtraHosts host-gateway). */
export const DOCKER_HOST_ALIAS = 'host.docker.internal'

/** The instance's image: the template with its ERP version (a fixed image as it is). */
export function imageFor (spec: Pick<InstanceSpec, 'erpVersion'>, options: Pick<ResolvedOptions, 'imageTemplate'>): string {
  return imageForVersion(options.imageTemplate, spec.erpVersion)
}

/** The tenant's addons folder on the Docker host. */
export function addonsHostPath (spec: Pick<InstanceSpec, 'tenantSubdomain'>, options: Pick<ResolvedOptions, 'addonsRoot'>): string {
  assertDnsLabel('tenantSubdomain', spec.tenantSubdomain)
  return join(options.addonsRoot, spec.tenantSubdomain, 'addons')
}

/** Loopback names would mean the container itself: the database is on the Docker host. */
export function isHostLocal (host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  return bare === 'localhost' || bare === DOCKER_HOST_ALIAS || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare)
}

export function instanceLabels (spec: InstanceSpec, options: Pick<ResolvedOptions, 'labels' | 'network'>): Record<string, string> {
  const name = containerName(spec.subdomain)
  return {
    ...options.labels,
    [LABELS.managed]: 'true',
    [LABELS.instanceId]: spec.instanceUid,
    [LABELS.tenantId]: spec.tenantId,
    [LABELS.tenant]: spec.tenantSubdomain,
    [LABELS.subdomain]: spec.subdomain,
    'traefik.enable': 'true',
    [`traefik.http.routers.${name}.rule`]: `Host(\`${spec.host}\`)`,
    [`traefik.http.services.${name}.loadbalancer.server.port`]: String(ERP_PORT),
    ...(options.network === undefined ? {} : { 'traefik.docker.network': options.network })
  }
}

export function containerConfig (spec: InstanceSpec, options: ResolvedOptions): Docker.ContainerCreateOptions {
  const name = containerName(spec.subdomain)
  if (options.instancesDomain !== undefined && spec.host !== `${spec.subdomain}.${options.instancesDomain}`) {
    throw new TypeError(`host must be ${spec.subdomain}.${options.instancesDomain}, got ${JSON.stringify(spec.host)}`)
  }
  if (!/^[A-Za-z0-9.-]+$/.test(spec.host)) throw new TypeError(`host must be a DNS name, got ${JSON.stringify(spec.host)}`)
  const { database, resources } = spec
  const local = isHostLocal(database.host)
  const port = `${ERP_PORT}/tcp`
  const fill = (arg: string): string => arg.replaceAll('{database}', database.name).replaceAll('{workers}', String(resources.workers))
  return {
    name,
    Image: imageFor(spec, options),
    Labels: instanceLabels(spec, options),
    Env: [
      `HOST=${local ? DOCKER_HOST_ALIAS : database.host}`,
      `PORT=${database.port}`,
      `USER=${database.user}`,
      `PASSWORD=${database.password}`,
      `ERP_DATABASE=${database.name}`,
      `ERP_WORKERS=${resources.workers}`
    ],
    ...(options.command === undefined ? {} : { Cmd: options.command.map(fill) }),
    ExposedPorts: { [port]: {} },
    ...(options.healthCheck === null ? {} : { Healthcheck: healthConfig(options.healthCheck) }),
    HostConfig: {
      RestartPolicy: { Name: 'unless-stopped' },
      Memory: resources.memoryMb * 1024 * 1024,
      NanoCpus: resources.cpuMillicores * 1_000_000,
      Binds: [`${addonsHostPath(spec, options)}:${options.addonsMountPath}:ro`],
      Mounts: [{ Type: 'volume', Source: dataVolumeName(spec.subdomain), Target: options.dataMountPath }],
      ...(local ? { ExtraHosts: [`${DOCKER_HOST_ALIAS}:host-gateway`] } : {}),
      ...(options.publishPort ? { PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] } } : {}),
      ...(options.network === undefined ? {} : { NetworkMode: options.network })
    }
  }
}

function healthConfig (check: HealthCheckOptions): Docker.HealthConfig {
  const ns = (ms: number | undefined): number | undefined => ms === undefined ? undefined : ms * 1_000_000
  return {
    Test: check.command,
    Interval: ns(check.intervalMs),
    Timeout: ns(check.timeoutMs),
    StartPeriod: ns(check.startPeriodMs),
    Retries: check.retries
  }
}
