# Sourced by .ci/run (its exports must reach `npm test`).
# Docker engine for the Docker tests (test/support/docker): the machine's when `docker info`
#    answers; else Debian's docker.io, started here (as root). Then the stand-in ERP image (no
#    registry needed: docker import of a busybox-static rootfs; skipped when already up to date).
docker_ok() { docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }
docker_fail() {
  echo "--- DOCKER: $*" >&2
  if [ -f /tmp/dockerd.log ]; then echo "--- last lines of /tmp/dockerd.log:" >&2; tail -n 30 /tmp/dockerd.log >&2; fi
  exit 1
}
busybox_bin="${BUSYBOX:-/bin/busybox}"
static_busybox_ok() { [ -x "$busybox_bin" ] && ! ldd "$busybox_bin" >/dev/null 2>&1; }
docker_started=$(date +%s%N)
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
packages=()
if ! docker_ok && { ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; }; then packages+=(docker.io); fi
static_busybox_ok || packages+=(busybox-static)
# The stand-in ERP bundles the host's psql and socat (test/support/docker/build-test-image.sh).
command -v socat >/dev/null 2>&1 || packages+=(socat)
ls /usr/lib/postgresql/*/bin/psql >/dev/null 2>&1 || packages+=(postgresql-client)
if [ "${#packages[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || docker_fail "need ${packages[*]} but not running as root: install them (Debian: apt-get install ${packages[*]})"
  command -v apt-get >/dev/null 2>&1 || docker_fail "need ${packages[*]} and there is no apt-get: install Docker and a static busybox"
  echo "--- installing ${packages[*]} (Debian packages)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  echo "--- installed in $(ms_since "$docker_started") ms"
fi
if ! docker_ok; then
  [ "$(id -u)" = 0 ] || docker_fail "the Docker engine does not answer and only root can start it here: start Docker"
  dockerd_started=$(date +%s%N)
  dockerd_pid=""
  if [ -s /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
    echo "--- dockerd (pid $(cat /var/run/docker.pid)) is running but not answering yet: waiting for it"
  else
    echo "--- starting dockerd --storage-driver=vfs (log: /tmp/dockerd.log)"
    nohup dockerd --storage-driver=vfs </dev/null >/tmp/dockerd.log 2>&1 &
    dockerd_pid=$!
  fi
  deadline=$(( $(date +%s) + 60 ))
  until docker_ok; do
    if [ -n "$dockerd_pid" ] && ! kill -0 "$dockerd_pid" 2>/dev/null; then docker_fail "dockerd exited during startup"; fi
    [ "$(date +%s)" -lt "$deadline" ] || docker_fail "dockerd did not answer \`docker info\` within 60 s"
    sleep 0.2
  done
  echo "--- dockerd answered in $(ms_since "$dockerd_started") ms"
fi
image_started=$(date +%s%N)
ERP_TEST_IMAGE="$(bash test/support/docker/build-test-image.sh erp-test-image:2)" || docker_fail "building the test image failed"
export ERP_TEST_IMAGE
export DOCKER_TESTS=required # no engine now = the Docker tests fail, not skip
echo "--- Docker $(docker info --format '{{.ServerVersion}}'), test image $ERP_TEST_IMAGE ($(ms_since "$image_started") ms); whole Docker step $(ms_since "$docker_started") ms"

# The backup tests' stand-in for postgres:{pg_major} (BACKUP_IMAGE): the host's Debian PostgreSQL
# client programs and their libraries in a docker-imported rootfs (no registry needed).
backup_image_started=$(date +%s%N)
BACKUP_TEST_IMAGE="$(bash test/support/docker/build-backup-image.sh)" || docker_fail "building the backup test image failed (needs postgresql-client)"
export BACKUP_TEST_IMAGE
echo "--- backup test image $BACKUP_TEST_IMAGE ($(ms_since "$backup_image_started") ms)"

# The ERP adapter tests' contract double of Odoo's external API (ERP_DOUBLE_IMAGE): Debian's python3.11
# and the standard-library modules the double loads, in a docker-imported rootfs (no registry needed).
if [ ! -x /usr/bin/python3.11 ]; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || docker_fail "need Debian's python3.11 (apt-get install python3.11-minimal)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3.11-minimal >/dev/null
fi
double_image_started=$(date +%s%N)
ERP_DOUBLE_IMAGE="$(bash test/support/docker/build-erp-double-image.sh)" || docker_fail "building the ERP double image failed"
export ERP_DOUBLE_IMAGE
echo "--- ERP double image $ERP_DOUBLE_IMAGE ($(ms_since "$double_image_started") ms)"

# The Kubernetes addon sync script's stand-in for alpine/git (ADDON_SYNC_IMAGE): Debian's git and ssh
# client with their libraries and the static busybox, in a docker-imported rootfs (no registry needed).
sync_image_started=$(date +%s%N)
ADDON_SYNC_TEST_IMAGE="$(bash test/support/docker/build-git-sync-image.sh)" || docker_fail "building the git sync test image failed (needs git and openssh-client)"
export ADDON_SYNC_TEST_IMAGE
echo "--- git sync test image $ADDON_SYNC_TEST_IMAGE ($(ms_since "$sync_image_started") ms)"
