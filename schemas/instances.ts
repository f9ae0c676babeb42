import { Type } from 'typebox'
import { INSTANCE_BACKENDS, INSTANCE_KINDS, INSTANCE_STATES } from '../plugins/app/instances/instance.entity.ts'
import { SUBDOMAIN_PATTERN, SUBDOMAIN_RULE } from '../lib/subdomains.ts'
import { FiniteNumber, InstanceId, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

// `enum` (not a union of literals) so that a wrong value's error lists the allowed ones.
export const InstanceState = Type.Enum(INSTANCE_STATES, {
  description: 'provisioning, running, starting, stopping, stopped, restarting, error, deleting, deleted, restoring or upgrading'
})
const Backend = Type.Enum(INSTANCE_BACKENDS, { description: 'Where it runs: `docker` or `kubernetes`' })
const Nullable = <T extends ReturnType<typeof Type.String>> (schema: T) => Type.Union([schema, Type.Null()])
const Minute = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$', 'x-pattern-message': 'must be a UTC time written YYYY-MM-DD HH:MM', description: '`YYYY-MM-DD HH:MM`, UTC' })

export const CreateInstanceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name, 1-100 characters' }),
  subdomain: Type.String({
    pattern: SUBDOMAIN_PATTERN,
    'x-pattern-message': `must be ${SUBDOMAIN_RULE}`,
    description: 'DNS label, 3-40 characters: lowercase letters, digits and inner hyphens; not reserved (www, api, admin, portal, mail, …); unique across all companies'
  }),
  erp_version: Type.String({ minLength: 1, maxLength: 20, description: 'One of the configured ERP versions (ERP_VERSIONS; default 16.0, 17.0, 18.0)' }),
  backend: Backend
}, { additionalProperties: false })

const Common = {
  id: InstanceId,
  name: Type.String(),
  url: Type.String({ description: '`https://<subdomain>.<INSTANCES_DOMAIN>` (http for a localhost domain)' }),
  subdomain: Type.String(),
  erp_version: Type.String({ examples: ['17.0'] }),
  backend: Backend,
  state: InstanceState,
  status: Type.Enum(INSTANCE_STATES, { description: 'What the backend was last seen doing; the state until first seen' }),
  status_message: Nullable(Type.String({ description: 'Why the instance is in `error`, or what is being retried while an attempt failed' })),
  kind: Type.Enum(INSTANCE_KINDS, { description: '`production`, or `staging`: a neutralized copy of `parent_id` (docs/staging.md)' }),
  parent_id: Type.Union([InstanceId, Type.Null()], { description: 'The production instance a staging copy was made from; null for a production instance' }),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'When a staging copy is deleted (UTC); null for a production instance' }))
}

export const InstanceSummary = Type.Object({
  ...Common,
  created_at: Type.String({ format: 'date-time' })
}, { $id: 'Instance', description: 'An instance as the list shows it' })

export const InstanceDetail = Type.Object({
  ...Common,
  version: Type.String({ description: 'The image the backend runs, e.g. `odoo:17.0`' }),
  database_size: Type.Union([FiniteNumber(), Type.Null()], { description: 'MB (pg_database_size); null when the database server cannot be asked' }),
  memory: Int4({ description: 'Memory limit, MB' }),
  storage: Int4({ description: 'Filestore volume, GB' }),
  cpu: FiniteNumber({ description: 'CPU limit, cores' }),
  database_name: Type.String({ description: 'The ERP database (also the name of its login role)' }),
  postgres_db: Type.String({ description: 'Where the database lives: `host:port/database`, as the instance reaches it' }),
  local_url: Nullable(Type.String({
    description: 'Where the instance opens from the machine that runs the service, without a proxy or DNS name: `http://127.0.0.1:<port>` ' +
      'while a Docker instance runs with its port published (DOCKER_PUBLISH_PORTS); null otherwise. `url` is its public address.',
    examples: ['http://127.0.0.1:32768']
  })),
  last_backup: Nullable(Minute),
  last_sync: Nullable({ ...Minute, description: 'When the reconciler last compared it with the backend, `YYYY-MM-DD HH:MM` UTC' }),
  staging_ids: Type.Array(InstanceId, { description: 'The staging copies made from this instance (deleted ones left out), oldest first' })
}, { $id: 'InstanceDetail', description: 'An instance in full' })

export const InstanceListQuery = Pagination
export const InstanceListResponse = Success({ instances: Type.Array(ref(InstanceSummary), { description: 'Newest first' }), pagination: ref(PageInfo) }, { $id: 'InstanceListResponse' })
export const InstanceResponse = Success({ instance: ref(InstanceDetail) }, { $id: 'InstanceResponse' })
export const InstanceActionResponse = Success({
  queued: Type.Boolean({ description: 'true: a job will do it (202); false: nothing to do, it is there or on its way (200)' }),
  instance: ref(InstanceDetail)
}, { $id: 'InstanceActionResponse' })
export const InstanceStatusResponse = Success({
  id: InstanceId,
  state: InstanceState,
  status: Type.Enum(INSTANCE_STATES),
  updated_at: Type.String({ format: 'date-time' })
}, { $id: 'InstanceStatusResponse' })

export const CreateStagingBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Display name; default `<parent name> (staging)`' })),
  subdomain: Type.Optional(Type.String({
    pattern: SUBDOMAIN_PATTERN,
    'x-pattern-message': `must be ${SUBDOMAIN_RULE}`,
    description: 'DNS label of the copy; default `<parent subdomain>-staging` (with a number when taken)'
  })),
  from_backup_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'A completed backup of this instance to copy; default: a fresh backup taken for the copy' }))
}, { additionalProperties: false })
