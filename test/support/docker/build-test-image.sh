#!/usr/bin/env bash
# Builds the image the Docker tests use in place of the ERP (`odoo:{version}` cannot be pulled in
# CI: there is no image registry). It is a few MB: a rootfs holding Debian's statically linked
# busybox (package busybox-static), whose `httpd` serves /www on $HTTP_PORT (default 8069, the ERP's
# port), imported with `docker import` -- no registry, no base image, no Dockerfile.
#
#   test/support/docker/build-test-image.sh [--force] [TAG]
#
# TAG defaults to $ERP_TEST_IMAGE, else erp-test-image:2. Progress goes to stderr; the tag alone
# goes to stdout, so `export ERP_TEST_IMAGE=$(test/support/docker/build-test-image.sh)` works.
# Idempotent: the image records the SHA-256 of its content (rootfs tar + image config) in its
# Comment; when TAG already has that hash nothing is built. A new build is run once
# (healthz over HTTP, the start line in the logs, a clean exit 0 on SIGTERM) before the tag is
# printed. --force rebuilds anyway. BUSYBOX=/path/to/static/busybox overrides /bin/busybox.
#
# The container:
#   - prints "erp-test-image: starting httpd on port <port>" to stdout, then serves HTTP with
#     busybox nc running /serve.sh per connection, logging each request to stderr
#     ("<method> <path> response:<code>"): GET serves the files under /www (/index.html, /healthz
#     answering "ok"), and POST /jsonrpc the part of Odoo's external API the service calls before it reports an
#     instance running (test/support/erp-double/odoo-external-api.json): common.authenticate and
#     object.execute_kw res.users write of uid 2's password. As strict as Odoo there: a database
#     knows admin/admin until that write, then only the written password (kept per database under
#     $ERP_DATA_DIR, default /var/lib/odoo, the instance's data volume, so it survives restarts);
#     any other model or method answers a fault; with a file `erp-test-image/not-answering` there,
#     /jsonrpc answers 502 with an HTML page instead (an ERP that does not answer);
#   - on SIGTERM or SIGINT prints "erp-test-image: TERM received, stopping" (or INT) and
#     "erp-test-image: stopped", and exits 0 at once (`docker stop` does not need its timeout);
#   - if the server dies, prints "erp-test-image: httpd exited with status <n>" and exits with it;
#   - run with `--stop-after-init` among its arguments (the ERP's one-off database initialisation),
#     prints them and exits 0 at once;
#   - writes "erp-test-image: tick <n>" (n = 1, 2, ...) every $TICK_SECONDS (default 0.2) for the
#     log tests: to stdout, and every fifth one to stderr instead. TICK_SECONDS=0 turns it off.
set -euo pipefail
umask 022

force=0
tag=""
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-test-image: unknown option $arg" >&2; exit 2 ;;
    *) tag="$arg" ;;
  esac
done
tag="${tag:-${ERP_TEST_IMAGE:-erp-test-image:2}}"
busybox="${BUSYBOX:-/bin/busybox}"
log() { echo "build-test-image: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v docker >/dev/null 2>&1 || die "no docker command (Debian: apt-get install docker.io)"
[ -x "$busybox" ] || die "$busybox not found (Debian: apt-get install busybox-static)"
# A dynamically linked busybox (Debian's `busybox` package) would not run in an empty rootfs.
if ldd "$busybox" >/dev/null 2>&1; then
  die "$busybox is dynamically linked; install busybox-static (or set BUSYBOX to a static busybox)"
fi

# Two test processes may build at once (tap runs files in parallel): one builds, the other
# then finds the image up to date.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/erp-test-image.$(id -u).lock"
  flock 9
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/erp-test-image.XXXXXX")"
verify_name=""
cleanup() {
  if [ -n "$verify_name" ]; then docker rm -f "$verify_name" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- rootfs ----------------------------------------------------------------------------------
rootfs="$work/rootfs"
mkdir -p "$rootfs"/{bin,etc,www,tmp,proc,sys,dev,root}
chmod 0755 "$rootfs"
chmod 1777 "$rootfs/tmp"
cp "$busybox" "$rootfs/bin/busybox"
chmod 0755 "$rootfs/bin/busybox"
applets=(sh ash httpd sleep echo expr cat kill ls env wget ps pidof true false test '[' printf id
  hostname mkdir rm touch cp mv ln chmod grep sed head tail wc date sync uname nc df du find
  mount stat sha256sum timeout)
available=" $("$busybox" --list | tr '\n' ' ') "
for applet in "${applets[@]}"; do
  case "$available" in *" $applet "*) ;; *) die "$busybox has no '$applet' applet" ;; esac
  ln -s busybox "$rootfs/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

cat >"$rootfs/entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
# Stand-in for the ERP: serves /www over HTTP on $HTTP_PORT (default 8069; not PORT, which the ERP image takes as the database port) until SIGTERM or SIGINT.
port="${HTTP_PORT:-8069}"
# The service initialises an instance's database with a one-off `odoo ... --stop-after-init`:
# this stand-in has nothing to initialise, so it says so and exits 0.
case " $* " in *" --stop-after-init "*) echo "erp-test-image: $* (nothing to initialise)"; exit 0 ;; esac
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
ENTRYPOINT
chmod 0755 "$rootfs/entrypoint.sh"

cat >"$rootfs/serve.sh" <<'SERVE'
#!/bin/sh
# One HTTP request on stdin, its answer on stdout (nc -ll -e runs this per connection).
cr=$(printf '\r')
read -r method path _version
length=0
while read -r header; do
  header="${header%"$cr"}"
  [ -z "$header" ] && break
  case "$header" in [Cc]ontent-[Ll]ength:*) length="${header#*:}"; length="${length# }" ;; esac
done
# Each request is logged to stderr, as busybox httpd -v did: `<method> <path> response:<code>`.
reply() {
  echo "erp-test-image: $method $path response:${1%% *}" >&2
  printf 'HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' "$1" "$2" "${#3}" "$3"
}
result() { reply '200 OK' application/json "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":$1}"; }
access_denied() {
  reply '200 OK' application/json "{\"jsonrpc\":\"2.0\",\"id\":$id,\"error\":{\"code\":200,\"message\":\"Odoo Server Error\",\"data\":{\"name\":\"odoo.exceptions.AccessDenied\",\"message\":\"Access Denied\",\"arguments\":[\"Access Denied\"],\"context\":{}}}}"
}
unsupported() {
  reply '200 OK' application/json "{\"jsonrpc\":\"2.0\",\"id\":$id,\"error\":{\"code\":200,\"message\":\"Odoo Server Error\",\"data\":{\"name\":\"builtins.AttributeError\",\"message\":\"$1 is not served by the stand-in ERP\",\"arguments\":[],\"context\":{}}}}"
}
if [ "$method" = GET ]; then
  # Files under /www (a bind mount there included), byte for byte.
  file="/www${path%%\?*}"
  [ "$path" = / ] && file=/www/index.html
  case "$path" in *..*) file=/nonexistent ;; esac
  if [ ! -f "$file" ]; then reply '404 Not Found' text/plain 'not found'; exit 0; fi
  echo "erp-test-image: GET $path response:200" >&2
  printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %s\r\nConnection: close\r\n\r\n' "$(wc -c <"$file")"
  cat "$file"
  exit 0
fi
if [ "$method $path" != 'POST /jsonrpc' ]; then reply '404 Not Found' text/plain 'not found'; exit 0; fi
body=$(head -c "$length")
store="${ERP_DATA_DIR:-/var/lib/odoo}/erp-test-image"
# A test puts this file on the data volume for an ERP that answers no JSON-RPC (a proxy's error page).
if [ -e "$store/not-answering" ]; then reply '502 Bad Gateway' text/html '<html><body>502 Bad Gateway</body></html>'; exit 0; fi
field() { expr "$body" : "$1"; }
id=$(field '.*"id":\([0-9]*\)') || id=null
service=$(field '.*"service":"\([a-z]*\)"')
call=$(field '.*"params":{[^}]*"method":"\([a-z_]*\)"')
db=$(field '.*"args":\["\([A-Za-z0-9_.-]*\)"')
[ -n "$db" ] || { unsupported "A call without a database"; exit 0; }
mkdir -p "$store"
stored=admin
[ -f "$store/$db" ] && stored=$(cat "$store/$db")
case "$service.$call" in
  common.authenticate)
    login=$(field '.*"args":\["[^"]*","\([^"]*\)"')
    password=$(field '.*"args":\["[^"]*","[^"]*","\([^"]*\)"')
    if [ "$login" = admin ] && [ "$password" = "$stored" ]; then result 2; else result false; fi ;;
  object.execute_kw)
    uid=$(field '.*"args":\["[^"]*",\([0-9]*\),')
    password=$(field '.*"args":\["[^"]*",[0-9]*,"\([^"]*\)"')
    [ "$uid" = 2 ] && [ "$password" = "$stored" ] || { access_denied; exit 0; }
    new=$(field '.*"res.users","write",\[\[2\],{"password":"\([^"]*\)"}\]') || { unsupported "This model method"; exit 0; }
    printf '%s' "$new" >"$store/$db.new" && mv "$store/$db.new" "$store/$db"
    result true ;;
  *) unsupported "$service.$call" ;;
esac
SERVE
chmod 0755 "$rootfs/serve.sh"

cat >"$rootfs/www/index.html" <<'HTML'
<!doctype html>
<html><head><title>erp-test-image</title></head>
<body><h1>erp-test-image</h1><p>Stand-in for the ERP in the control plane's Docker tests.</p></body></html>
HTML
printf 'ok\n' >"$rootfs/www/healthz"

# --- content hash: a reproducible tar (sorted, fixed owners and mtimes) plus the image config ---
changes=('ENTRYPOINT ["/entrypoint.sh"]' 'EXPOSE 8069' 'WORKDIR /')
tarball="$work/rootfs.tar"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu \
  -C "$rootfs" -cf "$tarball" .
hash="$( { sha256sum <"$tarball"; printf '%s\n' "${changes[@]}"; } | sha256sum | cut -c1-64)"
comment="erp-test-image content-sha256=$hash"

if [ "$force" = 0 ] && [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null || true)" = "$comment" ]; then
  log "$tag is up to date (content sha256 ${hash:0:12})"
  echo "$tag"
  exit 0
fi

# --- import ----------------------------------------------------------------------------------
started=$(date +%s%N)
change_args=()
for change in "${changes[@]}"; do change_args+=(--change "$change"); done
docker import --message "$comment" "${change_args[@]}" - "$tag" <"$tarball" >/dev/null \
  || die "docker import failed"
log "imported $tag (content sha256 ${hash:0:12}) in $(( ($(date +%s%N) - started) / 1000000 )) ms"

# --- verify: it serves HTTP, logs its start and tick lines and stops cleanly on SIGTERM -----------------
verify_name="erp-test-image-verify-$$"
docker run -d --name "$verify_name" --label erp.test-image.verify=1 "$tag" >/dev/null \
  || die "docker run $tag failed"
answer=""
for _ in $(seq 1 100); do
  answer="$(docker exec "$verify_name" wget -q -O - http://127.0.0.1:8069/healthz 2>/dev/null || true)"
  [ "$answer" = "ok" ] && break
  sleep 0.1
done
if [ "$answer" != "ok" ]; then
  docker logs "$verify_name" >&2 || true
  die "$tag did not answer /healthz within 10 s"
fi
rpc() {
  docker exec "$verify_name" wget -q -O - --header 'Content-Type: application/json' \
    --post-data "{\"jsonrpc\":\"2.0\",\"method\":\"call\",\"params\":{\"service\":\"$1\",\"method\":\"$2\",\"args\":$3},\"id\":7}" \
    http://127.0.0.1:8069/jsonrpc
}
expect_rpc() { # expected answer, then rpc's arguments
  local want="$1" got
  shift
  got="$(rpc "$@" || true)"
  [ "$got" = "$want" ] || die "$tag: $2 answered $got, expected $want"
}
expect_rpc '{"jsonrpc":"2.0","id":7,"result":2}' common authenticate '["verify","admin","admin",{}]'
expect_rpc '{"jsonrpc":"2.0","id":7,"result":true}' object execute_kw '["verify",2,"admin","res.users","write",[[2],{"password":"s3cret-_x"}],{}]'
expect_rpc '{"jsonrpc":"2.0","id":7,"result":false}' common authenticate '["verify","admin","admin",{}]'
expect_rpc '{"jsonrpc":"2.0","id":7,"result":2}' common authenticate '["verify","admin","s3cret-_x",{}]'
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
log "verified $tag: /healthz and /jsonrpc answer, logs its start and tick lines, exits 0 on SIGTERM in ${stop_ms} ms"
echo "$tag"
