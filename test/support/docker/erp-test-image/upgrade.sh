#!/bin/sh
# `odoo -d <db> -u all --stop-after-init` (a version upgrade's command): records the version
# (`--erp-version V`, a stand-in option for the test's command template, else $ERP_VERSION, else
# 17.0) as the system parameter database.erp_version through psql and exits 0.
# When a test left <data_dir>/erp-test-image/upgrade-fails (its text is `<module>: <reason>`) or set
# ERP_UPGRADE_FAILS, it fails half-way as an upgrade can: database.erp_version is first set to
# `<version>-partial`, then it logs as Odoo 17 does (the module on the `Loading module` line before `Failed to load registry`) and exits 255 (what a rollback
# must undo). Exits 1 too when the database is not initialised.
. /lib/erp/erp.sh
db=""
version="${ERP_VERSION:-17.0}"
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--database) db="$2"; shift ;;
    --database=*) db="${1#*=}" ;;
    --erp-version) version="$2"; shift ;;
  esac
  shift
done
[ -n "$db" ] || db=$(configured_db)
[ -n "$db" ] || { echo "erp-test-image: no database to upgrade (-d or db_name)" >&2; exit 1; }
echo "$(date -u '+%Y-%m-%d %H:%M:%S'),000 1 INFO $db odoo.modules.loading: updating modules of $db to $version" >&2
reason="${ERP_UPGRADE_FAILS:-}"
marker="$(data_dir)/erp-test-image/upgrade-fails"
if [ -f "$marker" ]; then reason=$(cat "$marker"); fi
record() {
  sql "$db" -1 -v version="$1" >/dev/null <<'SQL'
INSERT INTO ir_config_parameter (key, value) VALUES ('database.erp_version', :'version') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
SQL
}
initialised "$db" || { echo "erp-test-image: database $db is not initialised: nothing to upgrade" >&2; exit 1; }
if [ -n "$reason" ]; then
  record "$version-partial" || true
  # As Odoo 17 fails an update: the module on the INFO line that starts loading it, not on the ERROR line; exit 255.
  stamp="$(date -u '+%Y-%m-%d %H:%M:%S'),000 1"
  echo "$stamp INFO $db odoo.modules.loading: Loading module ${reason%%:*} (2/24)" >&2
  echo "$stamp ERROR $db odoo.modules.registry: Failed to load registry" >&2
  echo "odoo.tools.convert.ParseError: while parsing /mnt/extra-addons/${reason%%:*}/views/views.xml:2,${reason#*:}" >&2
  echo "$stamp CRITICAL $db odoo.service.server: Failed to initialize database \`$db\`." >&2
  exit 255
fi
if ! record "$version"; then
  echo "erp-test-image: upgrading database $db failed" >&2
  exit 1
fi
echo "erp-test-image: database $db upgraded to $version" >&2
exit 0
