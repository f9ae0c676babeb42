/**
 * Every environment variable the service reads: its type, range, default, and
 * the words docs/configuration.md and the start-up messages are made from.
 *
 * Extra keywords on each variable (registered with Ajv in env.ts):
 * - `allowed`: what a valid value is, in words, where the type and range do not say it;
 * - `secret`: the value is never shown (messages print `(hidden)`);
 * - `examples`: the first one is the example in messages and docs (else the default).
 */
import { Type, type TSchema } from 'typebox'

const port = (fallback: number, description: string) => Type.Integer({ minimum: 1, maximum: 65535, default: fallback, description, examples: [fallback] })
/** The auth server's port when AUTH_PORT is unset and it runs on its own (`npm run auth`, AUTH_SERVER_PROCESS=false). */
export const STANDALONE_AUTH_PORT = 3001
/** A port with no fixed default: unset, the service picks a free one (see the description). */
const optionalPort = (example: number, description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description, examples: [example] }))
const seconds = (minimum: number, maximum: number, fallback: number, description: string) =>
  Type.Integer({ minimum, maximum, default: fallback, description })
const atLeastOne = (fallback: number, description: string) => Type.Integer({ minimum: 1, default: fallback, description })
const httpUrl = (description: string, example: string) => Type.Optional(Type.String({
  format: 'uri', pattern: '^https?://', allowed: 'an http:// or https:// URL', description, examples: [example]
}))
const postgresUrl = (description: string, example: string) => Type.Optional(Type.String({
  pattern: '^postgres(ql)?://', allowed: 'a postgres:// or postgresql:// connection URL', description, examples: [example]
}))
const secret = (description: string) => Type.Optional(Type.String({
  minLength: 32, secret: true, allowed: 'at least 32 characters (e.g. `openssl rand -base64 32`)', description, examples: ['$(openssl rand -base64 32)']
}))
const absolutePath = (fallback: string, description: string) => Type.String({ pattern: '^/', allowed: 'an absolute path (starting with /)', default: fallback, description })
/** A `*_ALLOWED_HOSTS` setting of the outbound guard (lib/outbound-url.ts). */
const allowedHosts = (description: string, example: string) => Type.String({
  default: '', pattern: '^[A-Za-z0-9.:\\[\\], -]*$', allowed: 'host names, comma-separated', description, examples: [example]
})
/** A Kubernetes object name (DNS-1123 subdomain). */
const kubeName = (description: string, example: string) => ({
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
  allowed: 'a Kubernetes object name: lowercase letters, digits, - and .',
  description,
  examples: [example]
})

export const ENV_SECTIONS = {
  HTTP: {
    PORT: port(3000, 'Port the portal listens on.'),
    HOST: Type.String({
      pattern: '^(\\[?[0-9A-Fa-f:.]+\\]?|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$',
      allowed: 'a host name or IP address', default: 'localhost',
      description: 'Interface to bind: `localhost` (IPv4 and IPv6 loopback), or `0.0.0.0` in a container.', examples: ['0.0.0.0']
    }),
    BASE_URL: httpUrl('The one public origin of the portal: API, docs, OAuth issuer and MCP endpoint. Default `http://localhost:<PORT>`.', 'https://portal.example.com'),
    CORS_ORIGINS: Type.String({
      default: '', allowed: 'comma-separated origins such as https://app.example.com (no path)',
      description: "Extra browser origins allowed by CORS (BASE_URL's origin always is).", examples: ['https://app.example.com,http://localhost:5173']
    }),
    BODY_LIMIT: Type.Integer({ minimum: 1024, maximum: 104_857_600, default: 1_048_576, description: 'Largest accepted request body, in bytes.' }),
    SHUTDOWN_DELAY_SECONDS: seconds(0, 120, 5, 'On SIGTERM, how long the portal and the auth server keep serving with /health/ready answering 503 before they stop ' +
      'accepting: the time a load balancer (Kubernetes: the endpoints change reaching every proxy) needs to stop sending. Then in-flight requests finish. ' +
      'Keep it under terminationGracePeriodSeconds minus 15. SIGINT (Ctrl-C) skips it.'),
    TRUST_PROXY: Type.Boolean({ default: false, description: 'Set to true behind a reverse proxy or ingress, so client IPs come from X-Forwarded-For.' }),
    LOG_LEVEL: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info', description: 'Least severe level of the log lines written (JSON on stdout).', examples: ['debug'] }
    )
  },
  Database: {
    DATABASE_URL: postgresUrl('External PostgreSQL. When unset, an embedded PostgreSQL keeps its data in DATA_DIR/postgres.',
      'postgres://user:password@db.example.com:5432/erp_portal'),
    DATA_DIR: Type.String({ minLength: 1, default: './data', description: 'Where generated secrets, the embedded PostgreSQL, mail files and addons live.', examples: ['/var/lib/erp-portal'] }),
    EMBEDDED_PG_PORT: optionalPort(54329, 'Port of the embedded PostgreSQL (only without DATABASE_URL). Unset: 54329 when free, else any free port; ' +
      'the port chosen is kept in DATA_DIR/postgres-port for the next start. A port given here that is taken stops the start.'),
    DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'Connections per process to the service database.' })
  },
  Secrets: {
    JWT_SECRET: secret('Signs portal bearer tokens. When unset, one is generated into DATA_DIR/secrets/jwt-secret. Replicas must share it: set it explicitly when running several.'),
    ERP_CREDENTIALS_KEY: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9+/_-]{43,}={0,2}$', secret: true,
      allowed: 'at least 32 random bytes in base64 or base64url (e.g. `openssl rand -base64 32`)',
      description: 'Key of the instances\' generated credentials: the passwords of their database roles (HMAC) and the sealed (AES-256-GCM) passwords of each ERP\'s administrator and database manager. When unset, one is generated into DATA_DIR/secrets/erp-credentials-key; ' +
        'an installation that already has instances gets the key their passwords were derived from (from JWT_SECRET), so they do not change. ' +
        'Rotating JWT_SECRET does not change them. Replicas must share it. Keep it once instances exist: their containers and Kubernetes Secrets hold passwords made with it.',
      examples: ['$(openssl rand -base64 32)']
    })),
    TOKEN_TTL_SECONDS: seconds(60, 2_592_000, 43_200, 'Lifetime of a portal bearer token.')
  },
  'Rate limits': {
    LOGIN_LIMIT_PER_IP: atLeastOne(20, 'Login attempts per minute per client IP (counters are shared by all replicas through PostgreSQL).'),
    LOGIN_LIMIT_PER_ACCOUNT: atLeastOne(10, 'Login attempts per 15 minutes per account.'),
    SIGNUP_LIMIT_PER_IP: atLeastOne(10, 'Signups per hour per client IP.'),
    SIGNUP_LIMIT_PER_ACCOUNT: atLeastOne(5, 'Signups per hour per e-mail address.')
  },
  'E-mail and invitations': {
    SMTP_URL: Type.Optional(Type.String({
      pattern: '^smtps?://', allowed: 'an smtp:// or smtps:// URL',
      description: 'SMTP server. When unset, each message is written as an .eml file under DATA_DIR/mail and invitation links are logged.',
      examples: ['smtp://user:password@smtp.example.com:587']
    })),
    MAIL_FROM: Type.String({
      pattern: '^[^<>]*<[^<>@\\s]+@[^<>@\\s]+>$|^[^<>@\\s]+@[^<>@\\s]+$', allowed: 'an e-mail address, optionally as `Name <address>`',
      default: 'ERP Portal <no-reply@localhost>', description: 'Sender of every message; its name is the product name in mails.', examples: ['ERP Portal <no-reply@example.com>']
    }),
    MAIL_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Delivery attempts of one e-mail before it is failed for good.' }),
    MAIL_RETRY_SECONDS: seconds(1, 3600, 30, 'First retry delay of a failed e-mail; doubled on each further failure (plus jitter), at most an hour.'),
    INVITATION_TTL_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'How long an invitation can be accepted.' }),
    INVITATION_RESEND_LIMIT: atLeastOne(3, 'Resends per invitation per hour.')
  },
  'Payments and trials': {
    PAYMENT_PROVIDERS: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9_, -]*$', allowed: 'provider names, comma-separated (supported: sandbox), or empty for none',
      description: 'Enabled payment providers. Default: `sandbox` with the embedded database, none with DATABASE_URL. ' +
        'The sandbox lets administrators mark their own payments paid: never in production.',
      examples: ['sandbox']
    })),
    PAYMENT_WEBHOOK_SECRETS: Type.String({
      default: '', secret: true, allowed: 'provider:secret pairs, comma-separated, each secret at least 16 characters',
      description: 'Webhook secrets of the payment providers. The sandbox falls back to a key derived from JWT_SECRET.',
      examples: ['sandbox:change-me-to-a-long-secret']
    }),
    TRIAL_SWEEP_SECONDS: seconds(5, 86_400, 300, 'How often expired trials are ended.')
  },
  'Support staff': {
    SUPPORT_API_TOKEN: secret('Turns on the /api/support/... operator routes (header X-Support-Token).')
  },
  'Instance logs': {
    LOG_STREAM_MAX_SECONDS: seconds(10, 86_400, 3600, 'Longest life of one live log stream (Server-Sent Events); the client reconnects with Last-Event-ID and a new stream token.'),
    LOG_STREAM_HEARTBEAT_SECONDS: seconds(1, 300, 15, 'How often an open log stream gets a heartbeat comment, so proxies keep it open.')
  },
  'Demo data': {
    SEED_DEMO: Type.Boolean({ default: true, description: 'Creates a demo company and its admin on first start (idempotent).' }),
    DEMO_COMPANY: Type.String({ minLength: 1, default: 'Demo Company', description: 'Name of the demo company.' }),
    DEMO_SUBDOMAIN: Type.String({
      pattern: '^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$', allowed: '3 to 40 lowercase letters, digits and inner hyphens',
      default: 'demo', description: 'Subdomain of the demo company.', examples: ['acme']
    }),
    DEMO_ADMIN_EMAIL: Type.String({ format: 'email', allowed: 'an e-mail address', default: 'admin@demo.example.com', description: 'Login of the demo admin.' }),
    DEMO_ADMIN_PASSWORD: Type.Optional(Type.String({
      minLength: 10, secret: true, allowed: 'at least 10 characters',
      description: 'Password of the demo admin. When unset, one is generated and printed once, on the first start.', examples: ['a-long-demo-password']
    }))
  },
  Instances: {
    INSTANCE_BACKENDS: Type.String({
      pattern: '^\\s*(docker|kubernetes)\\s*(,\\s*(docker|kubernetes)\\s*)*$', allowed: 'docker, kubernetes, or both comma-separated',
      default: 'docker,kubernetes', description: 'Backends offered for new instances.', examples: ['docker']
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
    ERP_INIT_TIMEOUT_SECONDS: seconds(30, 7200, 600, 'Bound on the ERP\'s one-off database initialisation (`-i base`) at an instance\'s first start.'),
    ERP_USER_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 50, default: 8, description: 'Retries (with backoff) of creating an invited person\'s ERP user or installing a module, e.g. while the instance is stopped.' })
  },
  Docker: {
    DOCKER_NETWORK: Type.Optional(Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', allowed: 'a Docker network name',
      description: 'User-defined network to attach instance containers to (and tell Traefik about). The engine is DOCKER_HOST, or the default socket.',
      examples: ['traefik']
    })),
    DOCKER_PUBLISH_PORTS: Type.Boolean({ default: true, description: 'Publish each instance\'s port on 127.0.0.1 (development without a proxy).' })
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
  },
  'Background jobs': {
    JOB_WORKERS: Type.Boolean({ default: true, description: 'Run job workers in this process (pg-boss, on the service database).' }),
    JOB_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Jobs run at once per process.' }),
    JOB_HEARTBEAT_SECONDS: seconds(10, 3600, 30, 'How often a running job says it is alive; a silent one is retried.'),
    JOB_SUPERVISE_SECONDS: seconds(1, 3600, 30, 'How often queues are supervised.'),
    INSTANCE_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 20, default: 5, description: 'Retries of an instance action before the instance goes to `error`.' }),
    INSTANCE_ERROR_GRACE_SECONDS: seconds(1, 600, 15, 'How long the backend may report an error before an attempt is given up.'),
    INSTANCE_READY_TIMEOUT_SECONDS: seconds(5, 3600, 300, 'How long provision or start may take to report running.'),
    INSTANCE_STOP_GRACE_SECONDS: seconds(1, 600, 30, 'How long a stopping ERP gets to exit after SIGTERM before it is killed (docker stop -t, Kubernetes terminationGracePeriodSeconds); Odoo with many workers needs more than 10 s.'),
    RECONCILE_SECONDS: seconds(1, 3600, 30, 'How often instance states are compared with the backends.')
  },
  'Instance metrics': {
    METRICS_INTERVAL_SECONDS: seconds(10, 3600, 60, 'How often each running instance\'s usage is sampled; GET /metrics serves a sample younger than this without asking the backend.'),
    METRICS_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 8, description: 'Instances the sampler reads at once per backend (a slow backend holds up only its own instances).' }),
    METRICS_RAW_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'Days raw samples are kept; older history is served from hourly roll-ups.' }),
    METRICS_HOURLY_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 90, description: 'Days hourly roll-ups of the samples are kept.' })
  },
  'Service metrics (Prometheus)': {
    METRICS_TOKEN: secret('Bearer token a Prometheus scrape of GET /metrics must present. On the main port, /metrics exists only when this is set (404 otherwise); ' +
      'on METRICS_PORT it is required when set. The auth server\'s own /metrics takes the same token.'),
    METRICS_PORT: optionalPort(9464, 'Serve GET /metrics on this port (on HOST) instead of the main port, so the scrape can stay inside the cluster network. Unset: the main port, behind METRICS_TOKEN.')
  },
  Backups: {
    BACKUP_DIR: Type.Optional(Type.String({ minLength: 1, description: 'Folder of the backup archives, one subfolder per company and instance (`<tenant>/<instance>/`). Default DATA_DIR/backups.', examples: ['/srv/erp/backups'] })),
    BACKUP_IMAGE: Type.String({
      minLength: 1, default: 'postgres:{pg_major}',
      description: 'Image of the one-off container that runs pg_dump and pg_restore next to an instance; `{pg_major}` is the database server\'s major version, so the client is never older than the server.',
      examples: ['postgres:{pg_major}', 'registry.example.com/postgres-client:16']
    }),
    BACKUP_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 20, default: 3, description: 'Retries of a backup or restore before it is recorded as failed.' })
  },
  'Addon sources (Git)': {
    ADDON_SOURCE_ALLOWED_HOSTS: allowedHosts('Git hosts that addon sources may use even on private or loopback addresses (an internal Git server); empty: public addresses only.',
      'git.internal.example.com'),
    ADDON_SOURCE_MAX_BYTES: Type.Integer({ minimum: 1024, maximum: 1_099_511_627_776, default: 524_288_000, description: 'Largest repository a sync fetches and checks out, in bytes (the fetched pack, and the files checked out); a larger one fails the sync.' }),
    ADDON_SOURCE_MAX_FILES: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 50_000, description: 'Most files a synced checkout may hold; more fails the sync before anything is written.' }),
    ADDON_SOURCE_SYNC_TIMEOUT_SECONDS: seconds(5, 3600, 300, 'Longest a sync may take (fetch and checkout); a slower one fails.'),
    ADDON_SOURCE_SYNC_RETRIES: Type.Integer({ minimum: 0, maximum: 20, default: 2, description: 'Retries of a sync that failed for a reason that may pass (a timeout, an unreachable server) before the source is recorded as failed; a missing branch, a refused key or a cap fails at once.' }),
    ADDON_SYNC_IMAGE: Type.String({
      minLength: 1, default: 'alpine/git:2.47.2',
      description: 'Kubernetes backend: image of the Job that syncs an addon source into the tenant\'s addons claim. It needs git, a POSIX shell and coreutils or busybox (base64, du, mv -T, od).',
      examples: ['alpine/git:2.47.2', 'registry.example.com/git:2']
    })
  },
  'Agent access (OAuth authorization server)': {
    AUTH_PORT: optionalPort(STANDALONE_AUTH_PORT, 'Port of the auth server, on 127.0.0.1. Unset: the auth server started by the portal takes any free port ' +
      '(so two deployments can run on one machine); `npm run auth`, and a portal with AUTH_SERVER_PROCESS=false, use 3001. A port given here that is taken stops the start.'),
    AUTH_SERVER_PROCESS: Type.Boolean({ default: true, description: '`npm start` runs the auth server as a child process; false when it is deployed on its own (`npm run auth`).' }),
    AUTH_SERVER_URL: httpUrl('Where the portal reaches an auth server deployed on its own, on another host; when set, the portal starts no auth server child. ' +
      'Default http://127.0.0.1:AUTH_PORT. Whatever the address, the portal forwards nothing until the server there names BASE_URL as its issuer.', 'http://erp-auth-server:3001'),
    AUTH_HOST: Type.String({
      minLength: 1, default: '127.0.0.1',
      description: 'Interface the auth server listens on: loopback when the portal on the same machine forwards to it; 0.0.0.0 in a container that another host reaches (AUTH_SERVER_URL).',
      examples: ['0.0.0.0']
    }),
    PORTAL_LOGIN_URL: httpUrl('Login page the auth server sends people to. Default: the built-in one under BASE_URL.', 'https://portal.example.com/login'),
    PORTAL_API_URL: httpUrl('The portal API as the auth server reaches it. Default BASE_URL.', 'http://portal.internal:3000'),
    HANDOFF_SECRET: secret('Shared by the portal and the auth server for the login handoff. Default: a key derived from JWT_SECRET.'),
    HANDOFF_TTL_SECONDS: seconds(10, 60, 60, 'Lifetime of a login handoff code.'),
    OAUTH_ACCESS_TOKEN_TTL_SECONDS: seconds(60, 86_400, 900, 'Lifetime of an agent access token.'),
    OAUTH_REFRESH_TOKEN_TTL_SECONDS: seconds(3600, 31_536_000, 2_592_000, 'Lifetime of an agent refresh token.'),
    OAUTH_REFRESH_GRACE_SECONDS: seconds(0, 300, 30, 'How long a rotated refresh token is still accepted (a retried request).'),
    CLIENT_METADATA_ALLOWED_HOSTS: allowedHosts('Hosts whose client metadata documents may be fetched even on private or loopback addresses (a test server on localhost); empty: public addresses only.',
      'localhost')
  }
} satisfies Record<string, Record<string, TSchema>>

export const EnvSchema = Type.Object({
  ...ENV_SECTIONS.HTTP,
  ...ENV_SECTIONS.Database,
  ...ENV_SECTIONS.Secrets,
  ...ENV_SECTIONS['Rate limits'],
  ...ENV_SECTIONS['E-mail and invitations'],
  ...ENV_SECTIONS['Payments and trials'],
  ...ENV_SECTIONS['Support staff'],
  ...ENV_SECTIONS['Instance logs'],
  ...ENV_SECTIONS['Demo data'],
  ...ENV_SECTIONS.Instances,
  ...ENV_SECTIONS.Docker,
  ...ENV_SECTIONS.Kubernetes,
  ...ENV_SECTIONS['Background jobs'],
  ...ENV_SECTIONS['Instance metrics'],
  ...ENV_SECTIONS['Service metrics (Prometheus)'],
  ...ENV_SECTIONS.Backups,
  ...ENV_SECTIONS['Addon sources (Git)'],
  ...ENV_SECTIONS['Agent access (OAuth authorization server)']
}, { additionalProperties: false })

/** The words about one variable, read from its schema. */
export interface VariableInfo {
  name: string
  section: string
  description: string
  /** What a valid value is, in words. */
  allowed: string
  example: string
  default: string | undefined
  secret: boolean
}

interface Annotated {
  type?: string
  minimum?: number
  maximum?: number
  minLength?: number
  default?: unknown
  description?: string
  examples?: unknown[]
  allowed?: string
  secret?: boolean
  anyOf?: Array<{ const?: unknown }>
}

export function variableInfo (name: string): VariableInfo {
  for (const [section, variables] of Object.entries(ENV_SECTIONS)) {
    const schema = (variables as Record<string, TSchema>)[name] as Annotated | undefined
    if (schema !== undefined) {
      return {
        name,
        section,
        description: schema.description ?? '',
        allowed: allowedText(schema),
        example: String(schema.examples?.[0] ?? schema.default ?? ''),
        default: schema.default === undefined ? undefined : String(schema.default),
        secret: schema.secret === true
      }
    }
  }
  throw new RangeError(`no such variable: ${name}`)
}

export const VARIABLES: readonly string[] = Object.values(ENV_SECTIONS).flatMap((variables) => Object.keys(variables))

function allowedText (schema: Annotated): string {
  if (schema.allowed !== undefined) return schema.allowed
  if (schema.anyOf !== undefined) return `one of ${schema.anyOf.map((option) => String(option.const)).join(', ')}`
  if (schema.type === 'boolean') return 'true or false'
  if (schema.type === 'integer') {
    if (schema.maximum === undefined) return `an integer of at least ${schema.minimum ?? 0}`
    return `an integer from ${schema.minimum ?? 0} to ${schema.maximum}`
  }
  if (schema.minLength !== undefined && schema.minLength > 1) return `at least ${schema.minLength} characters`
  return 'a non-empty string'
}
