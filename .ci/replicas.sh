#!/usr/bin/env bash
# The replica proofs (test/replicas/): two portals and two authorization servers on one PostgreSQL
# behind a round-robin proxy, and a rolling restart of two portal processes under load behind a
# readiness-following proxy; long, so not part of `npm test` (package.json's tap `exclude`).
# Needs what .ci/run sets up: Node 24 on PATH, dependencies, PostgreSQL (TEST_DATABASE_URL or an
# embedded one) and a Docker engine (the instance actions run on the Docker backend).
set -euo pipefail
cd "$(dirname "$0")/.."
export DOCKER_TESTS="${DOCKER_TESTS:-required}"
# One file at a time: each picks free ports and restarts replicas on theirs, which a file running beside it could take meanwhile.
npm test -- test/replicas/*.test.ts --timeout=600 --jobs=1
