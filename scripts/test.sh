#!/usr/bin/env bash
# The whole test suite: builds, runs every swift-testing suite, then drives the real
# `idconnect` binary end to end (scripts/smoke.sh). Test peers are started by the
# scripts under scripts/peers/ when a suite needs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

started=$(date +%s)

# PostgreSQL for the store suite and the multi-instance test (scripts/peers/postgres-start.sh).
IDCONNECT_POSTGRES_DIR=$(mktemp -d /tmp/idc-postgres.XXXXXX)
trap 'scripts/peers/postgres-stop.sh "$IDCONNECT_POSTGRES_DIR"' EXIT
IDCONNECT_POSTGRES_URL=$(scripts/peers/postgres-start.sh "$IDCONNECT_POSTGRES_DIR")
export IDCONNECT_POSTGRES_DIR IDCONNECT_POSTGRES_URL
echo "== PostgreSQL started for the tests (${IDCONNECT_POSTGRES_URL%%:*}://…@${IDCONNECT_POSTGRES_URL##*@})"

swift build --build-tests
echo "== build finished in $(( $(date +%s) - started ))s"

swift test --skip-build
scripts/smoke.sh
python3 scripts/multi-instance-test.py "$(swift build --show-bin-path)/idconnect"
scripts/browser-test.sh
echo "== tests finished in $(( $(date +%s) - started ))s"
