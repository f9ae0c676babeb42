#!/usr/bin/env bash
# Builds the contract double of the ERP (test/support/erp-double): a server that keeps Odoo's external
# JSON-RPC contract (POST /jsonrpc, the common and object services) for the tests of the ERP adapter.
# It is NOT Odoo; its request and response shapes come from test/support/erp-double/odoo-external-api.json,
# which the tests read too. No registry is needed: a rootfs of Debian's python3.11 (package
# python3.11-minimal) with the libraries ldd lists, only the standard-library modules the double loads
# (list_modules.py), and Debian's static busybox (sh; wget and timeout for health checks: its wget -T crashes), imported with `docker import`.
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
# makes a database whose only login is admin/admin. `odoo neutralize -d <db>` neutralizes a database as
# Odoo 16+ does (scheduled actions and mail servers off, database.is_neutralized set) and exits; it
# fails while <data_dir>/erp-double/neutralize-fails exists or ERP_DOUBLE_NEUTRALIZE_FAILS is set.
set -euo pipefail
umask 022
name=build-erp-double-image
kind=erp-double-image
source "$(dirname "$0")/rootfs-image.sh"

parse_image_args "$@"
tag="${tag:-${ERP_DOUBLE_IMAGE:-erp-double-image:17.0}}"
here="$(cd "$(dirname "$0")/../erp-double" && pwd)"
python="${PYTHON:-/usr/bin/python3.11}"
[ -x "$python" ] || die "$python not found (Debian: apt-get install python3.11-minimal, or set PYTHON)"

rootfs_begin
mkdir -p "$rootfs"/{etc/odoo,var/lib/odoo,mnt/extra-addons,opt/erp-double}
busybox_applets sh ls cat wget sleep echo env id true timeout
copy_with_libraries "$python"
ln -s "$(basename "$python")" "$rootfs/usr/bin/python3"
modules="$("$python" -S "$here/list_modules.py" 2>/dev/null)" || die "list_modules.py failed under $python"
while read -r module; do
  case "$module" in *.so) copy_with_libraries "$module" ;; *) mkdir -p "$rootfs$(dirname "$module")"; cp "$module" "$rootfs$module" ;; esac
done <<<"$modules"
cp "$here"/odoo_double*.py "$here/odoo-external-api.json" "$rootfs/opt/erp-double/"
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

import_rootfs "$tag" "$force" 'ENV PATH=/usr/bin:/bin' 'ENV ODOO_RC=/etc/odoo/odoo.conf' 'ENV PYTHONDONTWRITEBYTECODE=1' 'ENV PYTHONUNBUFFERED=1' \
  'ENTRYPOINT ["/entrypoint.sh"]' 'CMD ["odoo"]' 'EXPOSE 8069' 'WORKDIR /'
if [ "$rootfs_imported" = 1 ]; then
  # Checked once: a database initialised by `-i base --stop-after-init` is kept in /var/lib/odoo.
  check="$(docker run --rm "$tag" sh -c 'python3 -S /opt/erp-double/odoo_double.py -d probe -i base --without-demo=all --stop-after-init 2>/dev/null && ls /var/lib/odoo/erp-double')" \
    || die "the double does not run in $tag"
  [ "$check" = "probe.json" ] || die "$tag: initialising a database left '$check' in /var/lib/odoo/erp-double"
fi
echo "$tag"
