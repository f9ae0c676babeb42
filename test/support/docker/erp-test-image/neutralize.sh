#!/bin/sh
# `odoo neutralize -d <db>` (Odoo 16+) as Odoo 17 does it: in one transaction, every scheduled action
# off but the autovacuum, every outgoing mail server off and an active dummy added (host `invalid`),
# database.is_neutralized set, through psql; exits 0. Exits 1 with the reason
# on stderr when the database is not initialised or cannot be written (as Odoo fails), or when a
# test left <data_dir>/erp-test-image/neutralize-fails (its text is the reason).
. /lib/erp/erp.sh
db=""
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--database) db="$2"; shift ;;
    --database=*) db="${1#*=}" ;;
  esac
  shift
done
[ -n "$db" ] || { echo "odoo neutralize: error: -d <database> is required" >&2; exit 1; }
marker="$(data_dir)/erp-test-image/neutralize-fails"
if [ -f "$marker" ]; then cat "$marker" >&2; exit 1; fi
initialised "$db" || { echo "erp-test-image: database $db is not initialised: nothing to neutralize" >&2; exit 1; }
echo "erp-test-image: neutralizing database $db" >&2
if ! sql "$db" -1 >/dev/null <<'SQL'
UPDATE ir_cron SET active = false WHERE name <> 'Base: Auto-vacuum internal data';
UPDATE ir_mail_server SET active = false;
INSERT INTO ir_mail_server (name, smtp_host, active) VALUES ('neutralization - disable emails', 'invalid', true);
INSERT INTO ir_config_parameter (key, value) VALUES ('database.is_neutralized', 'true') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
SQL
then
  echo "erp-test-image: neutralizing database $db failed" >&2
  exit 1
fi
echo "erp-test-image: database $db neutralized" >&2
exit 0
