#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing (Debian packages, the
# Python test peers; quick when everything is there), builds, runs every swift-testing suite,
# then drives the real `idconnect` binary end to end (scripts/smoke.sh and the checks after it).
# Test peers are started by the scripts under scripts/peers/ and stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

started=$(date +%s)
scripts/install-deps.sh
echo "== dependencies checked in $(( $(date +%s) - started ))s"

swift build --build-tests
echo "== build finished in $(( $(date +%s) - started ))s"

# Test peers, stopped on exit: PostgreSQL 15 (the store suite and the multi-instance test), OpenLDAP slapd (plain, StartTLS, ldaps) and, as root, a Samba AD DC;
# real upstream OAuth2 / OIDC providers with short upstream access-token lifetimes so that the
# tests exercise upstream refresh.
peers_dir=${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}
IDCONNECT_POSTGRES_DIR=$(mktemp -d /tmp/idc-postgres.XXXXXX)
stop_peers() {
  scripts/peers/postgres-stop.sh "$IDCONNECT_POSTGRES_DIR" || true
  LDAP_DIR="$peers_dir/ldap" scripts/peers/ldap-stop.sh || true
  SAMBA_DIR="$peers_dir/samba" scripts/peers/samba-ad-stop.sh || true
  scripts/peers/oidc-op-stop.sh || true
  scripts/peers/llng-stop.sh || true
  scripts/peers/pysaml2-idp-stop.sh || true
  scripts/peers/ssp-idp-stop.sh || true
}
trap stop_peers EXIT
IDCONNECT_POSTGRES_URL=$(scripts/peers/postgres-start.sh "$IDCONNECT_POSTGRES_DIR")
export IDCONNECT_POSTGRES_DIR IDCONNECT_POSTGRES_URL
echo "== PostgreSQL started for the tests (${IDCONNECT_POSTGRES_URL%%:*}://…@${IDCONNECT_POSTGRES_URL##*@})"
LDAP_DIR="$peers_dir/ldap" scripts/peers/ldap-start.sh
export IDCONNECT_LDAP_URL=ldap://127.0.0.1:10389 IDCONNECT_LDAPS_URL=ldaps://127.0.0.1:10636
export IDCONNECT_LDAP_CA="$peers_dir/ldap/tls/ca.pem"
if [ "$(id -u)" -eq 0 ]; then
  SAMBA_DIR="$peers_dir/samba" scripts/peers/samba-ad-start.sh
  export IDCONNECT_AD_URL=ldap://127.0.0.1:389 IDCONNECT_AD_LDAPS_URL=ldaps://127.0.0.1:636
  export IDCONNECT_AD_CA="$peers_dir/samba/tls/cert.pem" IDCONNECT_AD_SMBCONF="$peers_dir/samba/etc/smb.conf"
else
  echo "== not root: the Samba AD peer (fixed ports 389/636) is not started; the AD suites skip"
fi
export IDCONNECT_OIDC_ACCESS_TTL=120 IDCONNECT_LLNG_ACCESS_TTL=120
DOT_ACCESS_TTL=$IDCONNECT_OIDC_ACCESS_TTL scripts/peers/oidc-op-start.sh
LLNG_ACCESS_TTL=$IDCONNECT_LLNG_ACCESS_TTL scripts/peers/llng-start.sh
export IDCONNECT_OIDC_ISSUER=http://127.0.0.1:9100/o
export IDCONNECT_LLNG_ISSUER=http://127.0.0.1:9300
# SAML 2.0 IdPs (pysaml2, SimpleSAMLphp) that know the broker as SP http://127.0.0.1:8080/saml/metadata
# with this key pair; the pysaml2 IdP encrypts assertions when the SP uses its /enc/<cipher>/ metadata.
export SAML_SP_DIR="$peers_dir/saml-sp"
scripts/peers/saml-sp-keys.sh
scripts/peers/pysaml2-idp-start.sh
scripts/peers/ssp-idp-start.sh
export IDCONNECT_SAML_SP_KEY="$SAML_SP_DIR/sp.key" IDCONNECT_SAML_SP_CERT="$SAML_SP_DIR/sp.crt"
export IDCONNECT_SAML_P2_METADATA=http://127.0.0.1:8490/metadata
export IDCONNECT_SAML_P2_ENCRYPTING=http://127.0.0.1:8490/enc/aes128-gcm/metadata
export IDCONNECT_SAML_SSP_METADATA=http://127.0.0.1:8480/saml2/idp/metadata.php
# A small MaxMind-format database for server.geoip (QR-code login's info).
export IDCONNECT_GEOIP_TEST_DB="$peers_dir/geoip-test.mmdb"
.venv-peers/bin/python scripts/peers/geoip-test-db.py "$IDCONNECT_GEOIP_TEST_DB"

# The suite starts well over a hundred brokers in one process, each generating an RSA-2048
# signing key (seconds each in a debug build) on NIO's shared blocking pool, which has one thread
# per core. On two cores that queue once held other tests' password checks past their HTTP read
# timeout; more threads share the CPU instead of queueing. (The broker itself sees one key
# generation at start, not a hundred.)
#
# At most eight tests at a time (swift-testing starts every test at once otherwise): with ~700
# tests in flight on two cores, the CPU queue alone outlasted the 2-second AuthLink and data-link
# timeouts that many tests configure, and whole batches failed together although each passes on
# its own. Eight keeps both cores busy and finished sooner (143 s against 150 s here).
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${IDCONNECT_TEST_WIDTH:-8} \
  NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT=8 swift test --skip-build
# docs/architecture.md against the code: the module map and each engine part's store roles.
python3 scripts/architecture-check.py
scripts/smoke.sh
# An operator's first hour with the binary (docs/operations.md): --version, refusals before anything
# is created, the admin listener and its metrics, SIGTERM with a long poll open, healthcheck,
# clients list, hash-password on a terminal.
python3 scripts/operator-check.py "$(swift build --show-bin-path)/idconnect"
# The container image (docs/operations.md, "Docker"): the Dockerfile's promises always; building and
# running the image where a Docker engine runs (none does on the development and CI machines).
scripts/docker-check.sh
# The OpenID Foundation's Basic OP, Config OP, Form Post Basic OP and Back-Channel OP plans (our
# port) against the binary over HTTPS with a CA made for the run; results compared with
# scripts/conformance/expected*.txt (docs/conformance.md).
scripts/conformance/run.sh "$(swift build --show-bin-path)/idconnect"
# Pre-authentication floods against the real binary: memory and storage stay bounded
# (docs/security.md, rule 13).
python3 scripts/security/flood-check.py "$(swift build --show-bin-path)/idconnect"
python3 scripts/multi-instance-test.py "$(swift build --show-bin-path)/idconnect"
# Soak with faults, the 2-minute version (docs/fuzzing.md): two instances on PostgreSQL under mixed
# load through AuthLink and LDAP while B is killed, PostgreSQL restarts and the AuthLink stalls;
# no refresh token lost, nothing spent twice, no 5xx outside the database restart.
python3 scripts/soak.py "$(swift build --show-bin-path)/idconnect" --minutes 2 --kill-every 40 --workers 6
# Property-based tests of every documented operation from docs/openapi.yaml (schemathesis, 100
# generated requests per operation and phase, with and without client credentials).
python3 scripts/openapi/property-test.py "$(swift build --show-bin-path)/idconnect" --examples 100
# docs/api-resources.md end to end: the example resource servers (PyJWT, jwt-kit) and authlib with PAR.
.venv-peers/bin/python scripts/api-resources-check.py "$(swift build --show-bin-path)/idconnect" \
  "$(swift build --show-bin-path)/resource-server-example"
# docs/device-grant.md end to end: Microsoft's MSAL as the device, two instances on PostgreSQL.
.venv-peers/bin/python scripts/device-grant-check.py "$(swift build --show-bin-path)/idconnect"
# docs/dpop.md end to end: joserfc-made proofs, replay across two instances on PostgreSQL.
.venv-peers/bin/python scripts/dpop-check.py "$(swift build --show-bin-path)/idconnect"
# docs/client-authentication.md end to end: authlib's PrivateKeyJWT and ClientSecretJWT, replay across instances.
.venv-peers/bin/python scripts/client-auth-check.py "$(swift build --show-bin-path)/idconnect"
# docs/client-authentication.md: signed request objects (RFC 9101) made by joserfc, by value and through PAR.
.venv-peers/bin/python scripts/request-object-check.py "$(swift build --show-bin-path)/idconnect"
# docs/connectors/oauth2-oidc.md: private_key_jwt toward a provider that requires it (Glewlwyd).
.venv-peers/bin/python scripts/upstream-client-auth-check.py "$(swift build --show-bin-path)/idconnect"
# docs/connectors/oauth2-oidc.md: a sign-out at the provider (Glewlwyd) ends the broker's sign-in by back-channel logout.
.venv-peers/bin/python scripts/backchannel-logout-check.py "$(swift build --show-bin-path)/idconnect"
# docs/protocol.md: back-channel logout to relying parties, tokens verified by joserfc, two instances on PostgreSQL.
.venv-peers/bin/python scripts/backchannel-rp-check.py "$(swift build --show-bin-path)/idconnect"
# docs/token-exchange.md end to end over HTTP on two instances: another API, act, the upstream token single-flight.
.venv-peers/bin/python scripts/token-exchange-check.py "$(swift build --show-bin-path)/idconnect"
# docs/native-sso.md end to end over HTTP: the second app exchanges at the other instance on PostgreSQL.
.venv-peers/bin/python scripts/native-sso-check.py "$(swift build --show-bin-path)/idconnect"
# docs/consent.md end to end over HTTP: consent at the other instance, Remove access, the CLI, permission requests.
.venv-peers/bin/python scripts/consent-check.py "$(swift build --show-bin-path)/idconnect"
scripts/browser-test.sh
echo "== tests finished in $(( $(date +%s) - started ))s"
