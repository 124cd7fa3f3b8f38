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

# Real upstream OAuth2 / OIDC providers for the oauth2 and openid-connect connector suites, with
# short upstream access-token lifetimes so that the tests exercise upstream refresh.
stop_peers() {
  scripts/peers/oidc-op-stop.sh || true
  scripts/peers/llng-stop.sh || true
}
trap stop_peers EXIT
export IDCONNECT_OIDC_ACCESS_TTL=120 IDCONNECT_LLNG_ACCESS_TTL=120
DOT_ACCESS_TTL=$IDCONNECT_OIDC_ACCESS_TTL scripts/peers/oidc-op-start.sh
LLNG_ACCESS_TTL=$IDCONNECT_LLNG_ACCESS_TTL scripts/peers/llng-start.sh
export IDCONNECT_OIDC_ISSUER=http://127.0.0.1:9100/o
export IDCONNECT_LLNG_ISSUER=http://127.0.0.1:9300

swift test --skip-build
scripts/smoke.sh
scripts/browser-test.sh
echo "== tests finished in $(( $(date +%s) - started ))s"
