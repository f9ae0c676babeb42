/** Work around the instances: background jobs, metrics, backups, addon sources. */
import { Type, type TSchema } from 'typebox'
import { optionalPort, seconds, secret, allowedHosts } from '../schema-kinds.ts'

export const OPERATIONS_SECTIONS = {
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
    BACKUP_READER_IMAGE: Type.String({
      minLength: 1, default: 'busybox:1.37',
      description: 'Kubernetes backend: image of the short-lived pod that serves a backup archive from the tenant\'s backup claim while it is downloaded; it runs `httpd -f -p 8080 -h /backups` (busybox httpd, which answers byte ranges) as a non-root user.',
      examples: ['busybox:1.37', 'registry.example.com/busybox:1.37']
    }),
    BACKUP_READER_READY_SECONDS: seconds(1, 3600, 60, 'Kubernetes backend: how long a download waits for its reader pod to be ready (scheduled, image pulled, httpd answering) before it answers 503 `BACKUP_READER_UNAVAILABLE` and the pod is deleted.'),
    BACKUP_JOB_RETRIES: Type.Integer({ minimum: 0, maximum: 20, default: 3, description: 'Retries of a backup or restore before it is recorded as failed.' })
  },
  'Staging copies': {
    STAGING_TTL_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'Days a staging copy lives after it is made or refreshed; the company\'s administrators are e-mailed 3 days before, and it is deleted at the end (docs/staging.md).' })
  },
  Webhooks: {
    WEBHOOK_ALLOWED_HOSTS: allowedHosts('Hosts that webhook endpoints may use even on private or loopback addresses (a receiver inside your network); empty: public addresses only.',
      'hooks.internal.example.com'),
    WEBHOOK_CA_FILE: Type.Optional(Type.String({ minLength: 1, description: 'A PEM file of certificates to trust for webhook endpoints besides the system\'s (a receiver with a private CA).', examples: ['/etc/erp/webhook-ca.pem'] })),
    WEBHOOK_TIMEOUT_SECONDS: seconds(1, 60, 10, 'Longest one delivery attempt may take (connection, headers and body); a slower receiver counts as a failed attempt.'),
    WEBHOOK_RETRY_SECONDS: seconds(1, 3600, 30, 'First retry delay of a failed delivery; doubled on each further failure (plus jitter), at most an hour.'),
    WEBHOOK_RETRY_HOURS: Type.Integer({ minimum: 1, maximum: 168, default: 24, description: 'How long a delivery is retried before it is recorded as failed.' }),
    WEBHOOK_DISABLE_AFTER_HOURS: Type.Integer({ minimum: 1, maximum: 2160, default: 72, description: 'An endpoint whose deliveries have all failed for this long is disabled, and the company\'s administrators are e-mailed.' }),
    WEBHOOK_SECRET_GRACE_HOURS: Type.Integer({ minimum: 0, maximum: 720, default: 24, description: 'After a secret rotation, how long deliveries are also signed with the previous secret.' }),
    WEBHOOK_FANOUT_MS: Type.Integer({ minimum: 20, maximum: 60_000, default: 500, description: 'How often each job worker looks for new events to hand to the delivery queue, in milliseconds.' })
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
  }
} satisfies Record<string, Record<string, TSchema>>
