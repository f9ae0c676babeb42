#!/usr/bin/env bash
# Builds the image the Docker tests use in place of the ERP (`odoo:{version}` cannot be pulled in
# CI: there is no image registry). A rootfs holding Debian's statically linked busybox (package
# busybox-static), Debian's `psql` (postgresql-client) and `socat` with the shared libraries ldd
# lists, and the stand-in's scripts (test/support/docker/erp-test-image/), imported with
# `docker import` -- no registry, no base image, no Dockerfile.
#
#   test/support/docker/build-test-image.sh [--force] [TAG]
#
# TAG defaults to $ERP_TEST_IMAGE, else erp-test-image:2. Progress goes to stderr; the tag alone
# goes to stdout, so `export ERP_TEST_IMAGE=$(test/support/docker/build-test-image.sh)` works.
# Idempotent: the image records the SHA-256 of its content (rootfs tar + image config) in its
# Comment; when TAG already has that hash nothing is built. A new build is run once (HTTP, the
# start and tick lines, a clean exit 0 on SIGTERM) before the tag is printed. --force rebuilds.
#
# The container behaves as the official image with Odoo 17 where the service relies on it (its
# facts: the "server" object of test/support/erp-double/odoo-external-api.json):
#   - it runs as the user odoo (uid and gid 101), who owns /var/lib/odoo (and /mnt/extra-addons)
#     in the image, so a fresh named volume mounted there is populated with that owner;
#   - it reads /etc/odoo/odoo.conf ($ODOO_RC; the image's own says only addons_path and data_dir,
#     so list_db is True and the master password `admin`) and reaches PostgreSQL as the official
#     image does: db_host/db_port/db_user/db_password there, else the HOST/PORT/USER/PASSWORD env;
#   - as Odoo, refuses to run (exit 1) as the database user `postgres`;
#   - `odoo -d <db> -i base ... --stop-after-init` (any command with --stop-after-init) waits
#     $ERP_INIT_SECONDS (default 0), then makes through psql, in that database, tables
#     ir_module_module (base installed), res_users (admin/admin, uid 2), ir_config_parameter
#     (database.uuid, database.secret, database.create_date, web.base.url = http://localhost:8069)
#     ir_attachment, ir_cron (two active scheduled actions) and ir_mail_server, and exits 0 (1 when
#     the database cannot be reached or written). The database's data all lives in the database: a
#     dump and restore carries it;
#   - with `neutralize -d <db>`: turns every ir_cron and ir_mail_server row off and sets
#     database.is_neutralized = true in one transaction, exits 0; exits 1 with the reason when the
#     database is not initialised, or with the text of <data_dir>/erp-test-image/neutralize-fails;
#   - otherwise prints "erp-test-image: starting httpd on port <port>" and serves HTTP on
#     $HTTP_PORT (default 8069) with busybox nc, one /serve.sh per connection, logging each request
#     to stderr ("erp-test-image: <method> <path> response:<code>"). As Odoo's session store, every
#     request but /healthz makes <data_dir>/sessions and, when it cannot (a data folder it may not
#     write), answers Odoo's HTML 500 page and logs the PermissionError. While the configured database
#     (db_name) is not initialised every request but /healthz answers Odoo's HTML 500 page.
#     GET /web/health: 200 {"status": "pass"}. GET /web/database/manager: with list_db = False a
#     page saying "The database manager has been disabled by the administrator", else an open
#     manager listing the databases. GET /web/content/<id>: the file
#     <data_dir>/filestore/<db_name>/<ir_attachment.store_fname>, 404 when missing. GET /healthz:
#     "ok" (the stand-in's own liveness probe: real Odoo has no such path), and other files under
#     /www. POST /jsonrpc: common.version; common.authenticate (res_users); object.execute_kw
#     res.users write of uid 2's password, ir.config_parameter get_param/set_param (answering the
#     value it replaced, or false), and ir.attachment create [{"name", "datas" (base64)}]
#     (the file under filestore/<db>/<sha1[:2]>/<sha1>, returns the id); db.list and db.dump
#     (AccessDenied with list_db = False or a wrong master password; dump answers base64 of the
#     tables' rows); anything else a JSON-RPC fault. With a file erp-test-image/not-answering on
#     $ERP_DATA_DIR (default /var/lib/odoo), /jsonrpc answers 502 with an HTML page instead;
#   - on SIGTERM or SIGINT prints "erp-test-image: TERM received, stopping" (or INT) and
#     "erp-test-image: stopped", and exits 0 at once (`docker stop` does not need its timeout);
#     if the server dies, prints "erp-test-image: httpd exited with status <n>" and exits with it;
#   - writes "erp-test-image: tick <n>" (n = 1, 2, ...) every $TICK_SECONDS (default 0.2) for the
#     log tests: to stdout, and every fifth one to stderr instead. TICK_SECONDS=0 turns it off.
# The image also runs the tests' database relay (test/support/docker/engine.ts): socat on the
# host's network, so containers reach a PostgreSQL that listens on loopback only.
set -euo pipefail
umask 022
name=build-test-image
kind=erp-test-image
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/rootfs-image.sh"

parse_image_args "$@"
tag="${tag:-${ERP_TEST_IMAGE:-erp-test-image:2}}"
major="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)}"
psql_bin="/usr/lib/postgresql/$major/bin/psql"
[ -n "$major" ] && [ -x "$psql_bin" ] || die "no psql under /usr/lib/postgresql (Debian: apt-get install postgresql-client)"
socat_bin="$(command -v socat || true)"
[ -n "$socat_bin" ] || die "no socat (Debian: apt-get install socat)"
command -v node >/dev/null 2>&1 || die "no node on PATH (it reads the stand-in's facts)"

rootfs_begin
verify_name=""
trap 'if [ -n "$verify_name" ]; then docker rm -f "$verify_name" >/dev/null 2>&1 || true; fi; rm -rf "$work"' EXIT
# --- rootfs ----------------------------------------------------------------------------------
chmod 0755 "$rootfs"
mkdir -p "$rootfs"/{www,proc,sys,dev,lib/erp,etc/odoo,var/lib/odoo,mnt/extra-addons}
chmod 0755 "$rootfs/bin/busybox"
applets=(sh ash httpd sleep echo expr cat kill ls env wget ps pidof true false test '[' printf id
  hostname mkdir rm touch cp mv ln chmod grep sed head tail wc date sync uname nc df du find
  mount stat sha256sum sha1sum base64 cut tr timeout)
available=" $("$busybox" --list | tr '\n' ' ') "
for applet in "${applets[@]}"; do
  case "$available" in *" $applet "*) ;; *) die "$busybox has no '$applet' applet" ;; esac
done
busybox_applets "${applets[@]}"
copy_with_libraries "$psql_bin" /usr/bin
copy_with_libraries "$socat_bin" /usr/bin
# As the official image: the server runs as the user odoo (uid and gid 101), which owns the data
# folder, so a fresh named volume mounted there is populated with that owner.
printf 'root:x:0:0:root:/root:/bin/sh\nodoo:x:101:101::/var/lib/odoo:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nodoo:x:101:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
rootfs_owned="101:101:var/lib/odoo 101:101:mnt/extra-addons"
cp "$here/erp-test-image/entrypoint.sh" "$rootfs/entrypoint.sh"
cp "$here/erp-test-image/serve.sh" "$rootfs/serve.sh"
cp "$here/erp-test-image/erp.sh" "$here/erp-test-image/initialise.sh" "$here/erp-test-image/neutralize.sh" "$here/erp-test-image/upgrade.sh" "$here/erp-test-image/schema.sql" "$rootfs/lib/erp/"
chmod 0755 "$rootfs/entrypoint.sh" "$rootfs/serve.sh" "$rootfs/lib/erp/initialise.sh" "$rootfs/lib/erp/neutralize.sh" "$rootfs/lib/erp/upgrade.sh"
# The facts the stand-in shares with the JSON-RPC double, as shell variables.
node -e '
const server = require(process.argv[1]).server
const quote = (value) => "\x27" + String(value).replaceAll("\x27", "\x27\\\x27\x27") + "\x27"
const facts = {
  FACT_VERSION: JSON.stringify(server.version), FACT_INTERNAL_ERROR_PAGE: server.internalErrorPage, FACT_NOT_FOUND_PAGE: server.notFoundPage,
  FACT_MANAGER_DISABLED: server.databaseManagerDisabled, FACT_DEFAULT_BASE_URL: server.defaultConfigParameters["web.base.url"],
  FACT_POSTGRES_USER_REFUSED: server.postgresUserRefused
}
for (const [key, value] of Object.entries(facts)) {
  if (value === undefined) throw new Error(`odoo-external-api.json: server lacks what ${key} needs`)
  console.log(`${key}=${quote(value)}`)
}' "$here/../erp-double/odoo-external-api.json" >"$rootfs/lib/erp/facts.sh" || die "cannot read the server facts of odoo-external-api.json"
# The official image's configuration file (odoo/docker 17.0/odoo.conf): its other lines are comments.
printf '[options]\naddons_path = /mnt/extra-addons\ndata_dir = /var/lib/odoo\n' >"$rootfs/etc/odoo/odoo.conf"

cat >"$rootfs/www/index.html" <<'HTML'
<!doctype html>
<html><head><title>erp-test-image</title></head>
<body><h1>erp-test-image</h1><p>Stand-in for the ERP in the control plane's Docker tests.</p></body></html>
HTML
printf 'ok\n' >"$rootfs/www/healthz"

import_rootfs "$tag" "$force" 'ENTRYPOINT ["/entrypoint.sh"]' 'CMD ["odoo"]' 'ENV ODOO_RC=/etc/odoo/odoo.conf' 'ENV PATH=/usr/bin:/bin' 'EXPOSE 8069' 'WORKDIR /' 'USER odoo'
if [ "$rootfs_imported" = 0 ]; then echo "$tag"; exit 0; fi

# --- verify: it serves HTTP, logs its start and tick lines and stops cleanly on SIGTERM ---------
# (Without a database server: no db_name, so the server answers as Odoo does before choosing one.)
verify_name="erp-test-image-verify-$$"
docker run -d --name "$verify_name" --label erp.test-image.verify=1 "$tag" >/dev/null || die "docker run $tag failed"
answer=""
for _ in $(seq 1 100); do
  answer="$(docker exec "$verify_name" wget -q -O - http://127.0.0.1:8069/healthz 2>/dev/null || true)"
  [ "$answer" = "ok" ] && break
  sleep 0.1
done
[ "$answer" = "ok" ] || { docker logs "$verify_name" >&2 || true; die "$tag did not answer /healthz within 10 s"; }
health="$(docker exec "$verify_name" wget -q -O - http://127.0.0.1:8069/web/health 2>&1 || true)"
[ "$health" = '{"status": "pass"}' ] || die "$tag: /web/health answered $health"
version="$(docker exec "$verify_name" wget -q -O - --header 'Content-Type: application/json' \
  --post-data '{"jsonrpc":"2.0","method":"call","params":{"service":"common","method":"version","args":[]},"id":7}' http://127.0.0.1:8069/jsonrpc || true)"
case "$version" in '{"jsonrpc":"2.0","id":7,"result":{"server_version":"17.0"'*) ;; *) die "$tag: common.version answered $version" ;; esac
docker exec "$verify_name" psql --version >/dev/null || die "$tag: psql does not run in the image"
[ "$(docker exec "$verify_name" id -u)" = 101 ] || die "$tag does not run as the user odoo (uid 101)"
[ "$(docker exec "$verify_name" stat -c %u:%g /var/lib/odoo/sessions 2>&1)" = 101:101 ] || die "$tag: a request made no sessions folder owned by odoo in its data folder"
for _ in $(seq 1 50); do
  case "$(docker logs "$verify_name" 2>&1)" in *"erp-test-image: tick 2"*) break ;; esac
  sleep 0.1
done
stop_started=$(date +%s%N)
docker stop --time 10 "$verify_name" >/dev/null
stop_ms=$(( ($(date +%s%N) - stop_started) / 1000000 ))
exit_code="$(docker inspect --format '{{.State.ExitCode}}' "$verify_name")"
logs="$(docker logs "$verify_name" 2>&1)"
case "$logs" in
  *"erp-test-image: starting httpd on port 8069"*"erp-test-image: tick 2"*"erp-test-image: stopped"*) ;;
  *) echo "$logs" >&2; die "$tag: start, tick or stop line missing from the logs" ;;
esac
[ "$exit_code" = 0 ] || { echo "$logs" >&2; die "$tag exited $exit_code on SIGTERM (expected 0)"; }
[ "$stop_ms" -lt 5000 ] || die "$tag took ${stop_ms} ms to stop on SIGTERM (the trap does not work)"
docker rm "$verify_name" >/dev/null
verify_name=""
log "verified $tag: /healthz, /web/health and /jsonrpc answer, psql runs as odoo (uid 101), sessions/ is made, logs its start and tick lines, exits 0 on SIGTERM in ${stop_ms} ms"
echo "$tag"
