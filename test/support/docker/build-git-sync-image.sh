#!/usr/bin/env bash
# Builds the image the tests run the Kubernetes addon sync script in (plugins/app/addon-sources/
# kube-sync-script.ts), in place of ADDON_SYNC_IMAGE's default alpine/git (no registry in CI): a
# rootfs of Debian's git (package git: /usr/bin/git, the https remote helper from /usr/lib/git-core,
# the templates) and OpenSSH's client (package openssh-client), with the libraries ldd lists, and
# Debian's static busybox as /bin/sh and every other tool the script uses (mv -T, base64, od, du, awk,
# sed, ...), imported with `docker import`. Like alpine/git, it runs as root and has no CA bundle
# of its own: tests give git theirs (GIT_SSL_CAINFO).
#
#   test/support/docker/build-git-sync-image.sh [--force] [TAG]
#
# TAG defaults to $ADDON_SYNC_TEST_IMAGE, else erp-git-sync-test-image:1. The tag alone goes to
# stdout. Idempotent (the image's Comment records the SHA-256 of its content). A new build is
# checked by running `git --version`, `ssh -V` and `mv -T` in it.
set -euo pipefail
umask 022
name=build-git-sync-image
kind=erp-git-sync-test-image
source "$(dirname "$0")/rootfs-image.sh"

parse_image_args "$@"
tag="${tag:-${ADDON_SYNC_TEST_IMAGE:-erp-git-sync-test-image:1}}"
for program in /usr/bin/git /usr/lib/git-core/git-remote-http /usr/bin/ssh; do
  [ -x "$program" ] || die "$program not found (Debian: apt-get install git openssh-client)"
done

rootfs_begin
# The script's tools: every applet, as alpine's busybox would give them.
busybox_applets $("$rootfs/bin/busybox" --list)
copy_with_libraries /usr/bin/git
copy_with_libraries /usr/lib/git-core/git-remote-http
copy_with_libraries /usr/bin/ssh
# git runs its own subcommands and helpers from its exec path.
ln -s ../../bin/git "$rootfs/usr/lib/git-core/git"
ln -s git-remote-http "$rootfs/usr/lib/git-core/git-remote-https"
mkdir -p "$rootfs/usr/share/git-core"
[ -d /usr/share/git-core/templates ] && cp -r /usr/share/git-core/templates "$rootfs/usr/share/git-core/"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

import_rootfs "$tag" "$force" 'ENV PATH=/usr/bin:/bin' 'WORKDIR /' 'CMD ["git", "--version"]'
if [ "$rootfs_imported" = 1 ]; then
  # mv -T replaces a link to a folder by another link (the script's switch); without -T it would move into the folder.
  check="$(docker run --rm "$tag" sh -c 'git --version && ssh -V 2>&1 && cd /tmp && mkdir old new && ln -s old cur && ln -s new next && mv -fT next cur && echo "switched to $(readlink cur), $(ls old | wc -l) moved in"')" \
    || die "git does not run in $tag"
  case "$check" in *"git version"*OpenSSH*"switched to new, 0 moved in") ;; *) die "$tag: unexpected check output: $check" ;; esac
  log "$tag: $(printf '%s' "$check" | head -n 1)"
fi
echo "$tag"
