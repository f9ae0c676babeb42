#!/usr/bin/env bash
# Builds the contract double of the ERP (test/support/erp-double): a server that keeps Odoo's external
# JSON-RPC contract (POST /jsonrpc, the common and object services) for the tests of the ERP adapter.
# It is NOT Odoo; its request and response shapes come from test/support/erp-double/odoo-external-api.json,
# which the tests read too. No registry is needed: a rootfs of Debian's python3.11 (package
# python3.11-minimal) with the libraries ldd lists, only the standard-library modules the double loads
# (list_modules.py), and Debian's static busybox (sh, wget for health checks), imported with `docker import`.
#
#   test/support/docker/build-erp-double-image.sh [--force] [TAG]
#
# TAG defaults to $ERP_DOUBLE_IMAGE, else erp-double-image:17.0 (the ERP version the double reports).
# The tag alone goes to stdout. Idempotent (the image's Comment records the SHA-256 of its content).
#
# The container takes its command as the official image does: `odoo [options]` (the default) or
# options alone run the double; anything else is executed as it is. As in the official image,
# ODOO_RC=/etc/odoo/odoo.conf is read, its data_dir is /var/lib/odoo (where the double keeps each
# database's state), and nothing sets the administrator's password: `-d <db> -i base --stop-after-init`
# makes a database whose only login is admin/admin.
set -euo pipefail
umask 022

force=0
tag=""
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-erp-double-image: unknown option $arg" >&2; exit 2 ;;
    *) tag="$arg" ;;
  esac
done
tag="${tag:-${ERP_DOUBLE_IMAGE:-erp-double-image:17.0}}"
here="$(cd "$(dirname "$0")/../erp-double" && pwd)"
python="${PYTHON:-/usr/bin/python3.11}"
busybox="${BUSYBOX:-/bin/busybox}"
log() { echo "build-erp-double-image: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
command -v docker >/dev/null 2>&1 || die "no docker command (Debian: apt-get install docker.io)"
[ -x "$python" ] || die "$python not found (Debian: apt-get install python3.11-minimal, or set PYTHON)"
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 || die "$busybox must be a static busybox (Debian: apt-get install busybox-static)"

if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/erp-double-image.$(id -u).lock"
  flock 9
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/erp-double-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs"/{bin,usr/bin,etc/odoo,tmp,root,var/lib/odoo,mnt/extra-addons,opt/erp-double}
chmod 1777 "$rootfs/tmp"
cp "$busybox" "$rootfs/bin/busybox"
for applet in sh ls cat wget sleep echo env id true; do ln -s busybox "$rootfs/bin/$applet"; done
copy_with_libraries() {
  mkdir -p "$rootfs$(dirname "$1")"
  cp -L "$1" "$rootfs$1"
  ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | while read -r library; do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
  done || true
}
copy_with_libraries "$python"
ln -s "$(basename "$python")" "$rootfs/usr/bin/python3"
modules="$("$python" -S "$here/list_modules.py" 2>/dev/null)" || die "list_modules.py failed under $python"
while read -r module; do
  case "$module" in *.so) copy_with_libraries "$module" ;; *) mkdir -p "$rootfs$(dirname "$module")"; cp "$module" "$rootfs$module" ;; esac
done <<<"$modules"
cp "$here/odoo_double.py" "$here/odoo-external-api.json" "$rootfs/opt/erp-double/"
printf '[options]\naddons_path = /mnt/extra-addons\ndata_dir = /var/lib/odoo\n' >"$rootfs/etc/odoo/odoo.conf"
printf 'root:x:0:0:root:/root:/bin/sh\nodoo:x:101:101:odoo:/var/lib/odoo:/bin/sh\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nodoo:x:101:\n' >"$rootfs/etc/group"
cat >"$rootfs/entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
# As the official image's entrypoint: `odoo [options]` or options alone run the server with the
# database connection from HOST, PORT, USER and PASSWORD; anything else runs as it is.
db_args=""
[ -n "${HOST:-}" ] && db_args="$db_args --db_host $HOST"
[ -n "${PORT:-}" ] && db_args="$db_args --db_port $PORT"
[ -n "${USER:-}" ] && db_args="$db_args --db_user $USER"
[ -n "${PASSWORD:-}" ] && db_args="$db_args --db_password $PASSWORD"
case "$1" in
  -- | odoo) shift; exec python3 -S /opt/erp-double/odoo_double.py "$@" $db_args ;;
  -*) exec python3 -S /opt/erp-double/odoo_double.py "$@" $db_args ;;
  *) exec "$@" ;;
esac
ENTRYPOINT
chmod 0755 "$rootfs/entrypoint.sh"

changes=('ENV PATH=/usr/bin:/bin' 'ENV ODOO_RC=/etc/odoo/odoo.conf' 'ENV PYTHONDONTWRITEBYTECODE=1' 'ENV PYTHONUNBUFFERED=1'
  'ENTRYPOINT ["/entrypoint.sh"]' 'CMD ["odoo"]' 'EXPOSE 8069' 'WORKDIR /')
tarball="$work/rootfs.tar"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$rootfs" -cf "$tarball" .
hash="$( { sha256sum <"$tarball"; printf '%s\n' "${changes[@]}"; } | sha256sum | cut -c1-64)"
comment="erp-double-image content-sha256=$hash"
if [ "$force" = 0 ] && [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null || true)" = "$comment" ]; then
  log "$tag is up to date (content sha256 ${hash:0:12})"
  echo "$tag"
  exit 0
fi
change_args=()
for change in "${changes[@]}"; do change_args+=(--change "$change"); done
docker import --message "$comment" "${change_args[@]}" - "$tag" <"$tarball" >/dev/null || die "docker import failed"
# Checked once: a database initialised by `-i base --stop-after-init` is kept in /var/lib/odoo.
check="$(docker run --rm "$tag" sh -c 'python3 -S /opt/erp-double/odoo_double.py -d probe -i base --without-demo=all --stop-after-init 2>/dev/null && ls /var/lib/odoo/erp-double')" \
  || die "the double does not run in $tag"
[ "$check" = "probe.json" ] || die "$tag: initialising a database left '$check' in /var/lib/odoo/erp-double"
log "imported $tag ($(( $(stat -c %s "$tarball") / 1024 )) KiB), content sha256 ${hash:0:12}"
echo "$tag"
