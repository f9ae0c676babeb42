#!/bin/sh
# `odoo -d <db> -i base ... --stop-after-init`: after $ERP_INIT_SECONDS (the time Odoo takes,
# default 0), makes the Odoo-like schema in the database through psql and exits 0; exits 1 with
# psql's error when the database cannot be reached or written (as Odoo fails).
. /lib/erp/erp.sh
db=""
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--database) db="$2"; shift ;;
    --database=*) db="${1#*=}" ;;
  esac
  shift
done
[ -n "$db" ] || db=$(configured_db)
[ -n "$db" ] || { echo "erp-test-image: no database to initialise (-d or db_name)" >&2; exit 1; }
echo "erp-test-image: initialising database $db" >&2
sleep "${ERP_INIT_SECONDS:-0}"
if ! sql "$db" -1 -v uuid="$(cat /proc/sys/kernel/random/uuid)" -v secret="$(cat /proc/sys/kernel/random/uuid)" \
  -v base_url="$FACT_DEFAULT_BASE_URL" -f /lib/erp/schema.sql >/dev/null; then
  echo "erp-test-image: initialising database $db failed" >&2
  exit 1
fi
echo "erp-test-image: database $db initialised (base installed)" >&2
exit 0
