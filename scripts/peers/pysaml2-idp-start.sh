#!/usr/bin/env bash
# Starts the pysaml2 SAML 2.0 IdP (pysaml2_idp.py) on 127.0.0.1 for the saml connector tests, in its own
# process group; waits for its metadata.
#   metadata http://127.0.0.1:$P2_PORT/metadata (= entityID)   SSO /sso/redirect, /sso/post
#   login    form POST /login: username, password, hidden key
#   users    alice / alicepw, bob / bobpw     signs Response and Assertion (RSA-SHA256)
#   SP       the one of $SAML_SP_DIR/sp-metadata.xml (saml-sp-keys.sh, run here when missing)
#   /enc/<aes128-cbc|aes256-cbc|aes128-gcm|aes256-gcm>/metadata: the same IdP with encrypted assertions
# Env: P2_PORT (8490)  P2_DIR (${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/pysaml2-idp, wiped)
#      SAML_SP_DIR (${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp)  VENV (<repo>/.venv-peers)
# Needs: xmlsec1, pysaml2 in the venv (scripts/install-deps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
P2_PORT=${P2_PORT:-8490}
P2_DIR=${P2_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/pysaml2-idp}
export SAML_SP_DIR=${SAML_SP_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp}
venv=${VENV:-$here/../../.venv-peers}
[ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import saml2' 2>/dev/null ||
  { echo "no pysaml2 in the venv at $venv: run scripts/install-deps.sh" >&2; exit 1; }
command -v xmlsec1 >/dev/null || { echo "xmlsec1 missing: run scripts/install-deps.sh" >&2; exit 1; }
if [ -f "$P2_DIR/server.pid" ] && kill -0 "$(cat "$P2_DIR/server.pid")" 2>/dev/null; then
  echo "pysaml2 IdP already running (pid $(cat "$P2_DIR/server.pid"))" >&2; exit 1
fi
started=$(date +%s%N)
[ -f "$SAML_SP_DIR/sp-metadata.xml" ] || "$here/saml-sp-keys.sh" >/dev/null
rm -rf "$P2_DIR"; mkdir -p "$P2_DIR"
setsid "$venv/bin/python" "$here/pysaml2_idp.py" --dir "$P2_DIR" --port "$P2_PORT" \
  --sp-metadata "$SAML_SP_DIR/sp-metadata.xml" >"$P2_DIR/server.log" 2>&1 </dev/null &
echo $! >"$P2_DIR/server.pid"
metadata="http://127.0.0.1:$P2_PORT/metadata"
for _ in $(seq 1 150); do
  curl -fsS -o /dev/null "$metadata" 2>/dev/null && break
  kill -0 "$(cat "$P2_DIR/server.pid")" 2>/dev/null || { cat "$P2_DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o "$P2_DIR/idp-metadata.xml" "$metadata" || { tail "$P2_DIR/server.log" >&2; exit 1; }
echo "pysaml2 IdP up in $(( ($(date +%s%N) - started) / 1000000 )) ms: metadata $metadata" \
     "(encrypting: http://127.0.0.1:$P2_PORT/enc/aes128-gcm/metadata) cert $P2_DIR/idp.crt"
