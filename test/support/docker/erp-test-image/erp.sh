# Sourced by the stand-in ERP's scripts: its configuration file, its database (through psql),
# and the facts baked in from odoo-external-api.json's "server" object (/lib/erp/facts.sh).
. /lib/erp/facts.sh

# `conf KEY DEFAULT`: KEY's value in $ODOO_RC ([options], `key = value`), else DEFAULT. As Odoo
# reads it: "False"/"None" stand for no value.
conf() {
  value=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "${ODOO_RC:-/etc/odoo/odoo.conf}" 2>/dev/null | tail -n 1)
  value="${value%"${value##*[![:space:]]}"}"
  if [ -n "$value" ]; then printf '%s' "$value"; else printf '%s' "$2"; fi
}

# The database server as the official image's entrypoint gives it: db_host & co. in the
# configuration file, else the HOST/PORT/USER/PASSWORD environment (defaults db/5432/odoo/odoo).
# `sql DATABASE [psql options]`: runs the SQL on stdin (psql variables :'name' are quoted safely).
sql() {
  database="$1"
  shift
  PGHOST=$(conf db_host "${HOST:-db}") PGPORT=$(conf db_port "${PORT:-5432}") PGUSER=$(conf db_user "${USER:-odoo}") \
    PGPASSWORD=$(conf db_password "${PASSWORD:-odoo}") PGCONNECT_TIMEOUT=3 PGAPPNAME=erp-test-image \
    psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$database" "$@"
}

# The configured database (db_name), empty when none.
configured_db() {
  db=$(conf db_name "")
  case "$db" in False|None) db="" ;; esac
  printf '%s' "$db"
}

# Exit 0 when DATABASE holds an installed `base` (the state `-i base` leaves), whatever else.
initialised() {
  [ -n "$1" ] || return 1
  [ "$(echo "SELECT state FROM ir_module_module WHERE name = 'base'" | sql "$1" 2>/dev/null)" = installed ]
}

# Odoo's `list_db` and `admin_passwd` (the master password), with the image's defaults.
list_db_enabled() {
  case "$(conf list_db True)" in False|false|0|no) return 1 ;; *) return 0 ;; esac
}
data_dir() { conf data_dir /var/lib/odoo; }
