#!/usr/bin/env bash
# Starts a LemonLDAP::NG 2.16 portal (Debian packages, served by plackup) on 127.0.0.1 as a second
# upstream OpenID Connect provider for the openid-connect connector tests; waits for discovery.
#   issuer   http://127.0.0.1:$LLNG_PORT   (login form at /, fields user + password + CSRF token)
#   client   broker / broker-secret (code + PKCE required, refresh, password grant)
#   users    dwho / dwho, rtyler / rtyler (LemonLDAP::NG demo directory)
# Env: LLNG_PORT (9300)  LLNG_DIR (/tmp/idconnect-peers/llng, wiped)  LLNG_ACCESS_TTL (3600 s)
#      LLNG_REDIRECT_URIS (http://127.0.0.1:8080/oauth/callback)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LLNG_PORT=${LLNG_PORT:-9300}
export LLNG_DIR=${LLNG_DIR:-/tmp/idconnect-peers/llng}
psgi=/usr/share/lemonldap-ng/portal/htdocs/index.psgi
[ -f "$psgi" ] || { echo "LemonLDAP::NG portal not installed: run scripts/install-deps.sh" >&2; exit 1; }
if [ -f "$LLNG_DIR/server.pid" ] && kill -0 "$(cat "$LLNG_DIR/server.pid")" 2>/dev/null; then
  echo "LemonLDAP::NG already running (pid $(cat "$LLNG_DIR/server.pid"))" >&2; exit 1
fi
started=$(date +%s%N)
rm -rf "$LLNG_DIR"
mkdir -p "$LLNG_DIR"/{conf,cache,sessions/lock,psessions/lock}
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$LLNG_DIR/oidc.key" 2>/dev/null
openssl pkey -in "$LLNG_DIR/oidc.key" -pubout -out "$LLNG_DIR/oidc.pub"
python3 "$here/llng_conf.py"
export LLNG_DEFAULTCONFFILE="$LLNG_DIR/lemonldap-ng.ini"
setsid plackup -s HTTP::Server::PSGI --host 127.0.0.1 --port "$LLNG_PORT" "$psgi" >"$LLNG_DIR/server.log" 2>&1 </dev/null &
echo $! >"$LLNG_DIR/server.pid"
discovery="http://127.0.0.1:$LLNG_PORT/.well-known/openid-configuration"
for _ in $(seq 1 300); do
  curl -fsS -o /dev/null "$discovery" 2>/dev/null && break
  kill -0 "$(cat "$LLNG_DIR/server.pid")" 2>/dev/null || { cat "$LLNG_DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o /dev/null "$discovery" || { tail "$LLNG_DIR/server.log" >&2; exit 1; }
echo "LemonLDAP::NG up in $(( ($(date +%s%N) - started) / 1000000 )) ms: issuer http://127.0.0.1:$LLNG_PORT"
