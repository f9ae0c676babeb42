#!/bin/sh
# One HTTP request on stdin, its answer on stdout (nc -ll -e runs this per connection). Each
# request is logged to stderr: `erp-test-image: <method> <path> response:<code>`.
. /lib/erp/erp.sh
cr=$(printf '\r')
read -r method path _version
length=0
while read -r header; do
  header="${header%"$cr"}"
  [ -z "$header" ] && break
  case "$header" in [Cc]ontent-[Ll]ength:*) length="${header#*:}"; length="${length# }" ;; esac
done
reply() { # status, content type, body
  echo "erp-test-image: $method $path response:${1%% *}" >&2
  printf 'HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' "$1" "$2" "${#3}" "$3"
}
reply_file() { # content type, file
  echo "erp-test-image: $method $path response:200" >&2
  printf 'HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n' "$1" "$(wc -c <"$2")"
  cat "$2"
}
not_found() { reply '404 NOT FOUND' 'text/html; charset=utf-8' "$FACT_NOT_FOUND_PAGE"; }
# What Odoo answers to any request while its configured database is not initialised.
internal_error() { reply '500 INTERNAL SERVER ERROR' 'text/html; charset=utf-8' "$FACT_INTERNAL_ERROR_PAGE"; }
result() { reply '200 OK' application/json "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":$1}"; }
fault() { # exception class, message
  reply '200 OK' application/json "{\"jsonrpc\":\"2.0\",\"id\":$id,\"error\":{\"code\":200,\"message\":\"Odoo Server Error\",\"data\":{\"name\":\"$1\",\"debug\":\"\",\"message\":\"$2\",\"arguments\":[\"$2\"],\"context\":{}}}}"
}
access_denied() { fault odoo.exceptions.AccessDenied 'Access Denied'; }
unsupported() { fault builtins.AttributeError "$1 is not served by the stand-in ERP"; }
# Odoo's session store (odoo/tools/config.py, session_dir) makes <data_dir>/sessions on every
# request and fails it (PermissionError, the HTML 500 page) when the data folder is not writable.
if [ "$path" != /healthz ]; then
  sessions="$(data_dir)/sessions"
  if ! { mkdir -p "$sessions" 2>/dev/null && chmod 700 "$sessions" 2>/dev/null && [ -w "$sessions" ]; }; then
    echo "erp-test-image: PermissionError: [Errno 13] Permission denied: '$sessions'" >&2
    internal_error; exit 0
  fi
fi
configured=$(configured_db)
# Odoo serves every request in its configured database: one not initialised fails them all.
if [ -n "$configured" ] && [ "$path" != /healthz ] && ! initialised "$configured"; then internal_error; exit 0; fi

if [ "$method" = GET ]; then
  route="${path%%\?*}"
  case "$route" in
    /web/health) reply '200 OK' application/json '{"status": "pass"}' ;;
    /web/database/manager|/web/database/selector)
      if ! list_db_enabled; then
        reply '200 OK' 'text/html; charset=utf-8' "<!DOCTYPE html><html><head><title>Odoo</title></head><body><div class=\"alert alert-danger text-center\">$FACT_MANAGER_DISABLED</div></body></html>"
      else
        names=$(echo "SELECT datname FROM pg_database WHERE datdba = (SELECT usesysid FROM pg_user WHERE usename = current_user) AND NOT datistemplate ORDER BY 1" | sql postgres 2>/dev/null | sed 's/.*/<li>&<\/li>/' | tr -d '\n')
        reply '200 OK' 'text/html; charset=utf-8' "<!DOCTYPE html><html><head><title>Odoo</title></head><body><h1>Manage databases</h1><ul>$names</ul><form action=\"/web/database/backup\" method=\"post\"><input name=\"master_pwd\"/></form></body></html>"
      fi ;;
    /web/content/*)
      attachment="${route#/web/content/}"
      case "$attachment" in ''|*[!0-9]*) not_found; exit 0 ;; esac
      [ -n "$configured" ] || { not_found; exit 0; }
      fname=$(echo "SELECT store_fname FROM ir_attachment WHERE id = :'attachment'" | sql "$configured" -v attachment="$attachment" 2>/dev/null)
      file="$(data_dir)/filestore/$configured/$fname"
      case "$fname" in ''|*..*) not_found; exit 0 ;; esac
      if [ -f "$file" ]; then reply_file application/octet-stream "$file"; else not_found; fi ;;
    *)
      # Files under /www (/healthz: the stand-in's own liveness probe, which real Odoo has not).
      file="/www$route"
      [ "$route" = / ] && file=/www/index.html
      case "$route" in *..*) file=/nonexistent ;; esac
      if [ -f "$file" ]; then reply_file text/plain "$file"; else not_found; fi ;;
  esac
  exit 0
fi
if [ "$method $path" != 'POST /jsonrpc' ]; then not_found; exit 0; fi
body=$(head -c "$length")
store="${ERP_DATA_DIR:-/var/lib/odoo}/erp-test-image"
# A test puts this file on the data volume for an ERP that answers no JSON-RPC (a proxy's error page).
if [ -e "$store/not-answering" ]; then reply '502 Bad Gateway' text/html '<html><body>502 Bad Gateway</body></html>'; exit 0; fi
field() { expr "$body" : "$1"; }
id=$(field '.*"id":\([0-9]*\)') || id=null
service=$(field '.*"service":"\([a-z]*\)"')
call=$(field '.*"params":{[^}]*"method":"\([a-z_]*\)"')
db=$(field '.*"args":\["\([A-Za-z0-9_.-]*\)"')
case "$service.$call" in
  common.version) result "$FACT_VERSION" ;;
  common.authenticate)
    initialised "$db" || { internal_error; exit 0; }
    login=$(field '.*"args":\["[^"]*","\([^"]*\)"')
    password=$(field '.*"args":\["[^"]*","[^"]*","\([^"]*\)"')
    uid=$(echo "SELECT id FROM res_users WHERE login = :'login' AND password = :'password'" | sql "$db" -v login="$login" -v password="$password")
    result "${uid:-false}" ;;
  object.execute_kw)
    initialised "$db" || { internal_error; exit 0; }
    uid=$(field '.*"args":\["[^"]*",\([0-9]*\),')
    password=$(field '.*"args":\["[^"]*",[0-9]*,"\([^"]*\)"')
    known=$(echo "SELECT count(*) FROM res_users WHERE id = :'uid' AND password = :'password'" | sql "$db" -v uid="${uid:-0}" -v password="$password")
    [ "$known" = 1 ] || { access_denied; exit 0; }
    if new=$(field '.*"res.users","write",\[\[2\],{"password":"\([^"]*\)"}\]'); then
      echo "UPDATE res_users SET password = :'new' WHERE id = 2" | sql "$db" -v new="$new"
      result true
    elif key=$(field '.*"ir.config_parameter","[gs]et_param",\["\([^"]*\)"'); then
      # Odoo's get_param answers the value or false; set_param the value it replaced (or false).
      old=$(echo "SELECT value FROM ir_config_parameter WHERE key = :'key'" | sql "$db" -v key="$key")
      if value=$(field '.*"ir.config_parameter","set_param",\["[^"]*","\([^"]*\)"'); then
        echo "INSERT INTO ir_config_parameter (key, value) VALUES (:'key', :'value') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value" | sql "$db" -v key="$key" -v value="$value"
      fi
      if [ -n "$old" ]; then result "\"$old\""; else result false; fi
    elif datas=$(field '.*"ir.attachment","create",\[{.*"datas":"\([A-Za-z0-9+/=]*\)"'); then
      name=$(field '.*"ir.attachment","create",\[{.*"name":"\([^"]*\)"') || name=attachment
      tmp="$(data_dir)/filestore/$db/.upload.$$"
      mkdir -p "${tmp%/*}" && printf '%s' "$datas" | base64 -d >"$tmp"
      checksum=$(sha1sum "$tmp" | cut -c1-40)
      fname="$(echo "$checksum" | cut -c1-2)/$checksum"
      mkdir -p "$(data_dir)/filestore/$db/${fname%/*}" && mv "$tmp" "$(data_dir)/filestore/$db/$fname"
      new_id=$(echo "INSERT INTO ir_attachment (name, store_fname, file_size, checksum) VALUES (:'name', :'fname', :'size', :'checksum') RETURNING id" |
        sql "$db" -v name="$name" -v fname="$fname" -v size="$(wc -c <"$(data_dir)/filestore/$db/$fname")" -v checksum="$checksum")
      result "$new_id"
    else
      unsupported "This model method"
    fi ;;
  db.list)
    list_db_enabled || { access_denied; exit 0; }
    names=$(echo "SELECT datname FROM pg_database WHERE datdba = (SELECT usesysid FROM pg_user WHERE usename = current_user) AND NOT datistemplate ORDER BY 1" | sql postgres | sed 's/.*/"&"/' | tr '\n' ',')
    result "[${names%,}]" ;;
  db.dump)
    # Odoo checks the master password first, then that the database manager is enabled.
    master=$(field '.*"args":\["\([^"]*\)"')
    target=$(field '.*"args":\["[^"]*","\([A-Za-z0-9_.-]*\)"')
    [ "$master" = "$(conf admin_passwd admin)" ] && list_db_enabled || { access_denied; exit 0; }
    initialised "$target" || { fault builtins.Exception "Database $target not found or not initialised"; exit 0; }
    dump=$(printf 'COPY res_users TO STDOUT;\nCOPY ir_config_parameter TO STDOUT;\nCOPY ir_attachment TO STDOUT;\n' | sql "$target" | base64 -w 0)
    result "\"$dump\"" ;;
  db.server_version) result '"17.0"' ;;
  *) unsupported "$service.$call" ;;
esac
