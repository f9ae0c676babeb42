#!/usr/bin/env bash
# Builds the base image the Dockerfile starts FROM (node:24-bookworm-slim) without a registry: a
# rootfs holding the Node 24 binary that runs this script (the npm package `node@24`), npm, the
# shared libraries `ldd` lists, Debian's static busybox (sh, env, chown, mkdir ...) and the
# machine's CA bundle, imported with `docker import` and tagged with the name the Dockerfile
# expects. It stands in for the official image only to build and run ours here; a machine that
# can pull node:24-bookworm-slim needs none of this.
#
#   test/support/docker/build-node-image.sh [TAG]     (default node:24-bookworm-slim)
#
# Idempotent: skipped when TAG exists and was built from the same Node version.
set -euo pipefail
tag="${1:-node:24-bookworm-slim}"
node_bin="$(command -v node)"
node_version="$("$node_bin" --version)"
busybox="${BUSYBOX:-/bin/busybox}"
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
log() { echo "build-node-image: $*" >&2; }
case "$node_version" in v24.*) ;; *) log "node on PATH is $node_version: put Node 24 first on PATH (the image is named for it)"; exit 1 ;; esac

if [ "$(docker image inspect --format '{{.Comment}}' "$tag" 2>/dev/null || true)" = "node-image 3 $node_version" ]; then
  log "$tag is up to date (node $node_version)"; echo "$tag"; exit 0
fi
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 || { log "need a static busybox at $busybox (Debian: busybox-static)"; exit 1; }

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
chmod 755 "$root" # mktemp makes it 0700: the image's / would shut out every user but root
mkdir -p "$root"/{bin,usr/bin,usr/local/bin,usr/local/lib/node_modules,etc/ssl/certs,tmp,root,home/node}
chmod 1777 "$root/tmp"
cp "$(readlink -f "$node_bin")" "$root/usr/local/bin/node"
cp -r "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# Node's own libraries, plus the whole of glibc's (libc6: librt, libresolv, the NSS modules ...) as
# the official image has them: prebuilt native addons such as @node-rs/argon2 link against them.
glibc_libraries="$(dpkg -L libc6 2>/dev/null | grep -E '^/(usr/)?lib/x86_64-linux-gnu/[^/]+\.so' || true)"
for library in $(ldd "$node_bin" | grep -o '/lib[^ ]*') $glibc_libraries; do
  mkdir -p "$root$(dirname "$library")"
  cp -L "$library" "$root$library"
done
cp "$busybox" "$root/bin/busybox"
for applet in sh env ls cat mkdir rm cp mv chmod chown id wget tar; do ln -s /bin/busybox "$root/bin/$applet"; done
ln -s /bin/env "$root/usr/bin/env"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"

log "importing $tag (node $node_version)"
tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c 'CMD ["node"]' \
  -m "node-image 3 $node_version" - "$tag" >/dev/null
echo "$tag"
