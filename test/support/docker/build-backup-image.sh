#!/usr/bin/env bash
# Builds the image the backup tests use in place of `postgres:{pg_major}` (BACKUP_IMAGE): no image
# registry is reachable in CI. It is a rootfs holding the host's Debian PostgreSQL client programs
# (pg_dump, pg_restore, psql from /usr/lib/postgresql/<major>/bin, package postgresql-client-<major>)
# with the shared libraries ldd lists for them, plus Debian's statically linked busybox (sh, tar,
# find, ...), imported with `docker import` -- no registry, no base image, no Dockerfile.
#
#   test/support/docker/build-backup-image.sh [--force] [TAG]
#
# TAG defaults to $BACKUP_TEST_IMAGE, else erp-backup-test-image:<major>. The client's major
# version is the newest under /usr/lib/postgresql (PG_MAJOR overrides). The tag alone goes to
# stdout. Idempotent: the image's Comment records the SHA-256 of its content; when TAG already
# has it nothing is built. A new build is checked by running `pg_dump --version` in it.
set -euo pipefail
umask 022
name=build-backup-image
kind=erp-backup-test-image
source "$(dirname "$0")/rootfs-image.sh"

parse_image_args "$@"
major="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)}"
[ -n "$major" ] || die "no PostgreSQL client under /usr/lib/postgresql (Debian: apt-get install postgresql-client)"
bindir="/usr/lib/postgresql/$major/bin"
tag="${tag:-${BACKUP_TEST_IMAGE:-erp-backup-test-image:$major}}"
for program in pg_dump pg_restore psql; do
  [ -x "$bindir/$program" ] || die "$bindir/$program not found (Debian: apt-get install postgresql-client-$major)"
done

rootfs_begin
mkdir -p "$rootfs/data"
busybox_applets sh ls cat tar find rm mkdir sha256sum wc du env id sleep echo true
for program in pg_dump pg_restore psql; do copy_with_libraries "$bindir/$program" /usr/bin; done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

import_rootfs "$tag" "$force" 'ENV PATH=/usr/bin:/bin' 'WORKDIR /' 'CMD ["pg_dump", "--version"]'
if [ "$rootfs_imported" = 1 ]; then
  version="$(docker run --rm "$tag" pg_dump --version)" || die "pg_dump does not run in $tag"
  case "$version" in *" $major."*) ;; *) die "$tag answers '$version', expected major $major" ;; esac
  log "$tag: $version"
fi
echo "$tag"
