#!/usr/bin/env bash
# Starts django-oauth-toolkit on 127.0.0.1 as the upstream OAuth2 / OpenID Connect provider of the
# oauth2 and openid-connect connector tests, in its own process group; waits for discovery.
#   issuer   http://127.0.0.1:$DOT_PORT/o        login form /accounts/login/
#   clients  broker / broker-secret (authorization_code + refresh, PKCE required)
#            broker-ropc / ropc-secret (password)
#   users    alice / alicepw (groups admins, developers), bob / bobpw
#   control  POST /test-control/revoke/<username> revokes a user's grants (refusal tests)
# Env: DOT_PORT (9100)  DOT_DIR (/tmp/idconnect-peers/dot, wiped)  DOT_ACCESS_TTL (3600 s)
#      DOT_REDIRECT_URIS (http://127.0.0.1:8080/oauth/callback)  VENV (<repo>/.venv-peers)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DOT_PORT=${DOT_PORT:-9100}
export DOT_DIR=${DOT_DIR:-/tmp/idconnect-peers/dot}
venv=${VENV:-$here/../../.venv-peers}
python="$venv/bin/python"
manage="$here/dot_op/manage.py"
[ -x "$python" ] || { echo "no Python venv at $venv: run scripts/install-deps.sh" >&2; exit 1; }
if [ -f "$DOT_DIR/server.pid" ] && kill -0 "$(cat "$DOT_DIR/server.pid")" 2>/dev/null; then
  echo "django-oauth-toolkit already running (pid $(cat "$DOT_DIR/server.pid"))" >&2; exit 1
fi
started=$(date +%s%N)
rm -rf "$DOT_DIR"; mkdir -p "$DOT_DIR"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$DOT_DIR/oidc.key" 2>/dev/null
"$python" "$manage" migrate --noinput -v 0
(cd "$here/dot_op" && "$python" "$manage" shell -c "exec(open('seed.py').read())") >/dev/null
setsid "$python" "$manage" runserver "127.0.0.1:$DOT_PORT" --noreload >"$DOT_DIR/server.log" 2>&1 </dev/null &
echo $! >"$DOT_DIR/server.pid"
issuer="http://127.0.0.1:$DOT_PORT/o"
for _ in $(seq 1 150); do
  curl -fsS -o /dev/null "$issuer/.well-known/openid-configuration" 2>/dev/null && break
  kill -0 "$(cat "$DOT_DIR/server.pid")" 2>/dev/null || { cat "$DOT_DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o /dev/null "$issuer/.well-known/openid-configuration" || { tail "$DOT_DIR/server.log" >&2; exit 1; }
echo "django-oauth-toolkit up in $(( ($(date +%s%N) - started) / 1000000 )) ms: issuer $issuer"
