# Sourced by .ci/run (like .ci/docker.sh).
# kubectl for the test that renders deploy/kubernetes with `kubectl kustomize`
#    (test/deploy/kubernetes-manifests.test.ts): the machine's when present; else Debian's
#    kubernetes-client, installed here (as root). Without it that test fails, not skips.
if ! kubectl version --client >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "--- KUBECTL: need kubectl but not running as root: install it (Debian: apt-get install kubernetes-client)" >&2; exit 1; }
  echo "--- installing kubernetes-client (Debian package)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null
fi
echo "--- $(kubectl version --client 2>/dev/null | head -1)"
