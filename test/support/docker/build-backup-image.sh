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

force=0
tag=""
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-backup-image: unknown option $arg" >&2; exit 2 ;;
    *) tag="$arg" ;;
  esac
done
log() { echo "build-backup-image: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

major="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)}"
[ -n "$major" ] || die "no PostgreSQL client under /usr/lib/postgresql (Debian: apt-get install postgresql-client)"
bindir="/usr/lib/postgresql/$major/bin"
tag="${tag:-${BACKUP_TEST_IMAGE:-erp-backup-test-image:$major}}"
busybox="${BUSYBOX:-/bin/busybox}"
command -v docker >/dev/null 2>&1 || die "no docker command (Debian: apt-get install docker.io)"
[ -x "$busybox" ] || die "$busybox not found (Debian: apt-get install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then die "$busybox is dynamically linked; install busybox-static"; fi
for program in pg_dump pg_restore psql; do
  [ -x "$bindir/$program" ] || die "$bindir/$program not found (Debian: apt-get install postgresql-client-$major)"
done

if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/erp-backup-test-image.$(id -u).lock"
  flock 9
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/erp-backup-test-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT

rootfs="$work/rootfs"
mkdir -p "$rootfs"/{bin,usr/bin,etc,tmp,root,data}
chmod 1777 "$rootfs/tmp"
cp "$busybox" "$rootfs/bin/busybox"
for applet in sh ls cat tar find rm mkdir sha256sum wc du env id sleep echo true; do ln -s busybox "$rootfs/bin/$applet"; done
copy_with_libraries() {
  cp -L "$1" "$rootfs/usr/bin/"
  # ldd lines: "libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x...)" and the loader "/lib64/ld-linux-x86-64.so.2 (0x...)"
  ldd "$1" | grep -o '/[^ ]*' | while read -r library; do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
  done
}
for program in pg_dump pg_restore psql; do copy_with_libraries "$bindir/$program"; done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

changes=('ENV PATH=/usr/bin:/bin' 'WORKDIR /' 'CMD ["pg_dump", "--version"]')
tarball="$work/rootfs.tar"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$rootfs" -cf "$tarball" .
hash="$( { sha256sum <"$tarball"; printf '%s\n' "${changes[@]}"; } | sha256sum | cut -c1-64)"
comment="erp-backup-test-image content-sha256=$hash"
if [ "$force" = 0 ] && [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null || true)" = "$comment" ]; then
  log "$tag is up to date (content sha256 ${hash:0:12})"
  echo "$tag"
  exit 0
fi
change_args=()
for change in "${changes[@]}"; do change_args+=(--change "$change"); done
docker import --message "$comment" "${change_args[@]}" - "$tag" <"$tarball" >/dev/null || die "docker import failed"
version="$(docker run --rm "$tag" pg_dump --version)" || die "pg_dump does not run in $tag"
case "$version" in *" $major."*) ;; *) die "$tag answers '$version', expected major $major" ;; esac
log "imported $tag: $version"
echo "$tag"
