/**
 * A database restored as a new instance is a copy: it gets its own `database.uuid` and
 * `database.secret` in `ir_config_parameter`, as Odoo's own copy-restore does, so two instances
 * never share them (the secret signs the ERP's session tokens and links; the uuid identifies the
 * database to the outside, e.g. to Odoo's publisher services). A restore in place keeps them.
 *
 * The step runs where the dump is loaded (the Docker runner's one-off container, the Kubernetes
 * restore Job), right after pg_restore, with libpq's environment and psql, when NEW_DATABASE_IDENTITY
 * is 1. The values are made there, from the kernel's random uuids, so the secret is never written
 * into a container's or Job's configuration. A database without `ir_config_parameter` (not
 * initialised by the ERP) is left as it is.
 */

/** The environment that turns the step on. */
export const COPY_IDENTITY_ENV = { NEW_DATABASE_IDENTITY: '1' } as const

/** One parameter set to a shell variable's value: updated when there, inserted otherwise. */
const setParameter = (key: string, variable: string): string =>
  `UPDATE ir_config_parameter SET value = '$${variable}' WHERE key = '${key}'; ` +
  `INSERT INTO ir_config_parameter (key, value) SELECT '${key}', '$${variable}' WHERE NOT EXISTS (SELECT 1 FROM ir_config_parameter WHERE key = '${key}');`

/** The shell step (POSIX sh) giving the database named by the shell word `database` a copy's identity. */
export function copyIdentityStep (database: string): string {
  return [
    // oxlint-disable-next-line no-template-curly-in-string -- ${VAR} here is the shell's
    'if [ "${NEW_DATABASE_IDENTITY:-}" = 1 ]; then',
    '  new_uuid=$(cat /proc/sys/kernel/random/uuid) && new_secret=$(cat /proc/sys/kernel/random/uuid) || exit 1',
    '  case "$new_uuid$new_secret" in *[!0-9a-f-]*|"$new_uuid") echo "no random uuid for the identity of the copy" >&2; exit 1 ;; esac',
    `  if [ "$(psql -X -tA --dbname ${database} -c "SELECT to_regclass('ir_config_parameter') IS NOT NULL")" = t ]; then`,
    `    psql -X -q -v ON_ERROR_STOP=1 --dbname ${database} -c "${setParameter('database.uuid', 'new_uuid')} ${setParameter('database.secret', 'new_secret')}" || exit 1`,
    '    echo "the copy has its own database.uuid and database.secret"',
    '  fi',
    'fi'
  ].join('\n')
}
