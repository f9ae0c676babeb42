# Sourced by the build-*-image.sh scripts that make an image from a rootfs of host binaries: no
# registry, no base image, no Dockerfile. The caller sets `name` (its messages' prefix) and `kind`
# (the image's kind: the lock, the work folder and the Comment that records the content) first.
#   parse_image_args "$@" the scripts' common command line, `[--force] [TAG]`: sets $force (0 or 1)
#                         and $tag (empty when not given); -h prints the calling script's header
#   rootfs_begin          locks, makes $work and $rootfs (bin, usr/bin, etc, tmp, root), copies the
#                         static busybox ($BUSYBOX, default /bin/busybox) to /bin/busybox
#   busybox_applets A..   /bin/A -> busybox for each applet
#   copy_with_libraries F [DIR]  copies F to the same path in the rootfs (or into DIR there) with
#                         the libraries ldd lists
#   import_rootfs TAG FORCE CHANGE...  docker import when TAG's Comment does not record this content
#                         already; sets $rootfs_imported to 1 when it imported. Every entry is
#                         owned by root but the folders $rootfs_owned lists as `UID:GID:PATH`
#                         (PATH relative, e.g. `101:101:var/lib/odoo`: empty folders, their content is left out)
log() { echo "$name: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

parse_image_args() {
  force=0
  tag=""
  local arg
  for arg in "$@"; do
    case "$arg" in
      --force) force=1 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      -*) die "unknown option $arg" ;;
      *) tag="$arg" ;;
    esac
  done
}

rootfs_begin() {
  busybox="${BUSYBOX:-/bin/busybox}"
  command -v docker >/dev/null 2>&1 || die "no docker command (Debian: apt-get install docker.io)"
  # A dynamically linked busybox (Debian's `busybox` package) would not run in an empty rootfs.
  [ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 || die "$busybox must be a static busybox (Debian: apt-get install busybox-static)"
  if command -v flock >/dev/null 2>&1; then
    # Two test processes may build at once (tap runs files in parallel): one builds, the other
    # then finds the image up to date.
    exec 9>"${TMPDIR:-/tmp}/$kind.$(id -u).lock"
    flock 9
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/$kind.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  mkdir -p "$rootfs"/{bin,usr/bin,etc,tmp,root}
  chmod 1777 "$rootfs/tmp"
  cp "$busybox" "$rootfs/bin/busybox"
}

busybox_applets() {
  local applet
  for applet in "$@"; do [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"; done
}

copy_with_libraries() {
  local into="${2:-$(dirname "$1")}"
  mkdir -p "$rootfs$into"
  cp -L "$1" "$rootfs$into/"
  # ldd lines: "libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x...)" and the loader "/lib64/ld-linux-x86-64.so.2 (0x...)"
  ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | while read -r library; do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
  done || true
}

import_rootfs() {
  local tag="$1" force="$2" tarball="$work/rootfs.tar" hash comment change
  shift 2
  local owned excluded=()
  for owned in ${rootfs_owned:-}; do excluded+=(--exclude="./${owned#*:*:}"); done
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu "${excluded[@]}" -C "$rootfs" -cf "$tarball" .
  for owned in ${rootfs_owned:-}; do
    tar --mtime=@0 --owner="${owned%%:*}" --group="$(echo "$owned" | cut -d: -f2)" --numeric-owner --format=gnu \
      --no-recursion -C "$rootfs" -rf "$tarball" "./${owned#*:*:}"
  done
  hash="$( { sha256sum <"$tarball"; printf '%s\n' "$@"; } | sha256sum | cut -c1-64)"
  comment="$kind content-sha256=$hash"
  rootfs_imported=0
  if [ "$force" = 0 ] && [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null || true)" = "$comment" ]; then
    log "$tag is up to date (content sha256 ${hash:0:12})"
    return 0
  fi
  local change_args=()
  for change in "$@"; do change_args+=(--change "$change"); done
  docker import --message "$comment" "${change_args[@]}" - "$tag" <"$tarball" >/dev/null || die "docker import failed"
  rootfs_imported=1
  log "imported $tag ($(( $(stat -c %s "$tarball") / 1024 )) KiB), content sha256 ${hash:0:12}"
}
