#!/bin/sh
# Stand-in for the ERP: serves HTTP on $HTTP_PORT (default 8069; not PORT, which the ERP image
# takes as the database port) until SIGTERM or SIGINT. `... --stop-after-init` is the one-off
# database initialisation instead (/lib/erp/initialise.sh), `odoo neutralize -d <db>` the
# neutralization of a staging copy's database (/lib/erp/neutralize.sh), `odoo -d <db> -u all
# --stop-after-init` a version upgrade's command (/lib/erp/upgrade.sh).
. /lib/erp/erp.sh
# As Odoo's server does before anything else (odoo/cli/server.py, check_postgres_user).
if [ "$(conf db_user "${USER:-odoo}")" = postgres ]; then echo "$FACT_POSTGRES_USER_REFUSED" >&2; exit 1; fi
case " $* " in *" -u "*" --stop-after-init "*|*" --stop-after-init "*" -u "*) exec /lib/erp/upgrade.sh "$@" ;; esac
case " $* " in *" --stop-after-init "*) exec /lib/erp/initialise.sh "$@" ;; esac
case " $* " in *" neutralize "*) exec /lib/erp/neutralize.sh "$@" ;; esac
port="${HTTP_PORT:-8069}"
httpd_pid=""
ticker_pid=""
stop() {
  echo "erp-test-image: $1 received, stopping"
  if [ -n "$ticker_pid" ]; then kill -TERM "$ticker_pid" 2>/dev/null; fi
  if [ -n "$httpd_pid" ]; then
    kill -TERM "$httpd_pid" 2>/dev/null
    wait "$httpd_pid" 2>/dev/null
  fi
  echo "erp-test-image: stopped"
  exit 0
}
# As PID 1 the shell gets no default signal handling: without these traps `docker stop`
# would wait its whole timeout and then SIGKILL.
trap 'stop TERM' TERM
trap 'stop INT' INT
echo "erp-test-image: starting httpd on port $port"
# -ll: keep listening, one /serve.sh per connection.
nc -ll -p "$port" -e /serve.sh &
httpd_pid=$!
tick="${TICK_SECONDS:-0.2}"
if [ "$tick" != 0 ]; then
  (
    trap - TERM INT
    n=0
    while :; do
      n=$((n + 1))
      if [ $((n % 5)) = 0 ]; then echo "erp-test-image: tick $n" >&2; else echo "erp-test-image: tick $n"; fi
      sleep "$tick"
    done
  ) &
  ticker_pid=$!
fi
wait "$httpd_pid"
status=$?
echo "erp-test-image: httpd exited with status $status"
exit "$status"
