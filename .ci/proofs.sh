#!/usr/bin/env bash
# The long proofs, run after `npm test` by .ci/run (and on their own by hand):
#   1. test/replicas/  two portals and two authorization servers on one PostgreSQL behind a
#                      round-robin proxy (.ci/replicas.sh);
#   2. test/proofs/    the Docker engine restarted under running instances. It restarts the
#                      machine's engine, so it runs last and alone.
# Both are excluded from `npm test` (package.json's tap `exclude`). Needs what .ci/run sets up.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/replicas.sh
export DOCKER_TESTS="${DOCKER_TESTS:-required}"
npm test -- test/proofs/*.test.ts --timeout=600 --jobs=1
