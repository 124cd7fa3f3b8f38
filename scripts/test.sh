#!/usr/bin/env bash
# The whole test suite: builds, runs every swift-testing suite, then drives the real
# `idconnect` binary end to end (scripts/smoke.sh). Test peers are started by the
# scripts under scripts/peers/ when a suite needs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

started=$(date +%s)
swift build --build-tests
echo "== build finished in $(( $(date +%s) - started ))s"

swift test --skip-build
scripts/smoke.sh
scripts/browser-test.sh
echo "== tests finished in $(( $(date +%s) - started ))s"
