/** The instances: their logs, their settings, and the Docker and Kubernetes backends. */
import { Type, type TSchema } from 'typebox'
import { seconds, postgresUrl, absolutePath, kubeName } from '../schema-kinds.ts'

export const INSTANCES_SECTIONS = {
  'Instance logs': {
    LOG_STREAM_MAX_SECONDS: seconds(10, 86_400, 3600, 'Longest life of one live log stream (Server-Sent Events); the client reconnects with Last-Event-ID and a new stream token.'),
    LOG_STREAM_HEARTBEAT_SECONDS: seconds(1, 300, 15, 'How often an open log stream gets a heartbeat comment, so proxies keep it open.')
  },
  Instances: {
    INSTANCE_BACKENDS: Type.String({
      pattern: '^\\s*(docker|kubernetes)\\s*(,\\s*(docker|kubernetes)\\s*)*$', allowed: 'docker, kubernetes, or both comma-separated',
      default: 'docker',
      description: 'Backends offered for new instances. The default offers Docker only, which `npm start` on a machine with Docker can serve; ' +
        'add `kubernetes` (with KUBECONFIG, or in the cluster) to offer both.',
      examples: ['docker,kubernetes']
    }),
    ERP_VERSIONS: Type.String({
      pattern: '^\\s*\\d+\\.\\d+\\s*(,\\s*\\d+\\.\\d+\\s*)*$', allowed: 'versions like 17.0, comma-separated',
      default: '16.0,17.0,18.0', description: 'ERP versions a new instance may use.', examples: ['17.0,18.0']
    }),
    INSTANCES_DOMAIN: Type.String({
      pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$', allowed: 'a lowercase DNS name',
      default: 'localhost', description: 'Instances are served at `<subdomain>.<INSTANCES_DOMAIN>`.', examples: ['erp.example.com']
    }),
    ERP_IMAGE: Type.String({
      minLength: 1, allowed: 'an image reference where {version} stands for the ERP version, or a fixed image for a one-version deployment',
      default: 'odoo:{version}',
      description: 'Image of an instance; `{version}` is replaced by its ERP version. Without `{version}` every instance runs that one image ' +
        'whatever version is asked for (a warning says so at start).',
      examples: ['registry.example.com/erp:{version}']
    }),
    ERP_EDITION: Type.Union(['community', 'enterprise'].map((edition) => Type.Literal(edition)), {
      default: 'community',
      description: 'The ERP edition ERP_IMAGE carries. With community, catalog apps that only the Enterprise edition has are listed but refused ' +
        '(409 MODULE_EDITION_UNAVAILABLE) instead of failing inside the ERP; a company can still install its own synced copy. ' +
        'enterprise: the image holds the Enterprise addons (and the ERP vendor\'s subscription covers them).',
      examples: ['enterprise']
    }),
    ERP_DATABASE_URL: postgresUrl('PostgreSQL server (admin role: superuser, or CREATEROLE and CREATEDB) for the per-instance databases. Default: the service\'s own.',
      'postgres://postgres:password@db.internal:5432/postgres'),
    ERP_DATABASE_HOST: Type.Optional(Type.String({
      pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$', allowed: 'a host name or IP address (IPv6 with or without brackets)',
      description: 'How instances reach that server. Default: its host, or host.docker.internal for a loopback host when Docker is a backend.',
      examples: ['db.internal']
    })),
    ADDONS_ROOT: Type.Optional(Type.String({ minLength: 1, description: 'Folder of the tenants\' addons (on the Docker host). Default DATA_DIR/addons.', examples: ['/srv/erp/addons'] })),
    ERP_ADDONS_PATH: absolutePath('/mnt/extra-addons', 'Where an instance sees its tenant\'s addons.'),
    ERP_DATA_PATH: absolutePath('/var/lib/odoo', 'Where an instance keeps its filestore.'),
    ERP_HEALTHCHECK: Type.String({ minLength: 1, default: 'curl -fsS http://127.0.0.1:8069/web/health || exit 1', description: 'Docker health check command, run in the instance\'s container.' }),
    ERP_HEALTHCHECK_INTERVAL_SECONDS: seconds(1, 300, 10, 'Docker health check interval.'),
    ERP_HEALTH_PATH: Type.String({ pattern: '^/', allowed: 'a path starting with /', default: '/web/health', description: 'HTTP path of the Kubernetes probes on port 8069.', examples: ['/web/health'] }),
    ERP_CALL_TIMEOUT_SECONDS: seconds(1, 300, 15, 'Bound on each call to an instance\'s ERP API (its users, its modules); past it the route answers 503 ERP_UNAVAILABLE.'),
    ERP_INSTALL_TIMEOUT_SECONDS: seconds(10, 7200, 600, 'Bound on one module install through an instance\'s ERP: the install call, then reading the module\'s state back while the ERP reloads ' +
      '(a real install takes from 15 s to minutes, and the ERP answers nothing while it reloads). While an install runs within it, the reconciler leaves the instance\'s state alone.'),
    ERP_INIT_TIMEOUT_SECONDS: seconds(30, 7200, 600, 'Bound on the ERP\'s one-off database initialisation (`-i base`) at an instance\'s first start.'),
    ERP_UPGRADE_COMMANDS: Type.Optional(Type.String({
      minLength: 1, allowed: 'a JSON object: target version -> {"image": …, "command": […]}',
      description: 'How a database is upgraded to each ERP version (docs/upgrades.md): per target version an image (`{version}` is the target) and a command run to its end ' +
        'in a one-off container or Job with the instance\'s database connection, volume and configuration, as the neutralization runs. Placeholders in the command: ' +
        '`{database}`, `{from_version}`, `{target_version}`. A version without an entry cannot be upgraded to (409 UPGRADE_NOT_CONFIGURED). Unset: no upgrades.',
      examples: ['{"17.0":{"image":"odoo:17.0","command":["odoo","-d","{database}","-u","all","--stop-after-init"]}}']
    })),
    ERP_UPGRADE_TIMEOUT_SECONDS: seconds(60, 86_400, 7200, 'Bound on one upgrade command (`-u all` on a large database takes long).'),
    ERP_USER_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 50, default: 8, description: 'Retries (with backoff) of creating an invited person\'s ERP user or installing a module, e.g. while the instance is stopped.' })
  },
  Docker: {
    DOCKER_NETWORK: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', allowed: 'a Docker network name',
      description: 'User-defined network to attach instance containers to (and tell Traefik about). The engine is DOCKER_HOST, or the default socket.',
      examples: ['traefik']
    })),
    DOCKER_PUBLISH_PORTS: Type.Boolean({ default: true, description: 'Publish each instance\'s port on 127.0.0.1 (development without a proxy).' }),
    DOCKER_CALL_TIMEOUT_SECONDS: seconds(1, 300, 10, 'Bound on each quick Docker engine call (inspect, start, list, volume create…); past it the engine counts as not answering and the job retries.'),
    DOCKER_CREATE_TIMEOUT_SECONDS: seconds(5, 3600, 120, 'Bound on creating a container: on a slow storage driver (vfs) a 1.4 GB ERP image takes 10-50 s. A retry after a timeout reuses (and configures) the container the engine made meanwhile.'),
    DOCKER_REMOVE_TIMEOUT_SECONDS: seconds(5, 3600, 120, 'Bound on removing a container or volume, and on waiting for a removal already in progress (7-17 s for the ERP on vfs).'),
    DOCKER_PULL_TIMEOUT_SECONDS: seconds(10, 7200, 600, 'Bound on pulling a missing image.')
  },
  Kubernetes: {
    KUBECONFIG: Type.Optional(Type.String({
      minLength: 1, allowed: 'kubeconfig file paths, separated by :',
      description: 'Kubeconfig file(s). In a cluster, leave unset: the service account is used. Checked at start.', examples: ['/etc/erp-portal/kubeconfig']
    })),
    KUBE_INGRESS_CLASS: Type.String({ ...kubeName('Ingress class of the instances\' Ingresses.', 'traefik'), default: 'nginx' }),
    KUBE_TLS_ISSUER: Type.String({ ...kubeName('cert-manager ClusterIssuer for the instances\' certificates.', 'letsencrypt-prod'), default: 'letsencrypt' }),
    KUBE_STORAGE_CLASS: Type.Optional(Type.String(kubeName('Storage class of the instances\' data claims; the cluster default when unset.', 'fast-ssd'))),
    KUBE_ADDONS_STORAGE_CLASS: Type.Optional(Type.String(kubeName('Storage class of each tenant\'s addons claim, which must offer ReadWriteMany. Default KUBE_STORAGE_CLASS.', 'nfs-client'))),
    KUBE_ADDONS_STORAGE_GB: Type.Integer({ minimum: 1, maximum: 1000, default: 5, description: 'Size of each tenant\'s addons claim, in GiB.' }),
    KUBE_BACKUP_STORAGE_GB: Type.Integer({ minimum: 1, maximum: 10000, default: 20, description: 'Size of each tenant\'s backup claim (`backups-<tenant>`), where backup Jobs write the archives of its instances, in GiB. It counts against the tenant\'s storage quota.' }),
    KUBE_FS_GROUP: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 101, description: 'Pod fsGroup, so the image\'s user can write the data volume (the Odoo image\'s group is 101).' }),
    KUBE_ERP_ACCESS: Type.Union(['auto', 'service-dns', 'api-proxy'].map((access) => Type.Literal(access)), {
      default: 'auto',
      description: 'How the portal reaches an instance\'s ERP (to replace its default administrator password before reporting it running, and for its users and modules). ' +
        'service-dns: the Service\'s cluster DNS name (the portal runs in the cluster). api-proxy: the API server\'s Service proxy, with the kubeconfig\'s credentials ' +
        '(the portal runs outside the cluster; its account needs create on services/proxy). auto: api-proxy when KUBECONFIG is set, else service-dns.',
      examples: ['api-proxy']
    })
  }
} satisfies Record<string, Record<string, TSchema>>
