#!/usr/bin/env bash
# Starts Glewlwyd 2.7 (Debian package `glewlwyd`) on 127.0.0.1 with a SQLite database of its own,
# the peer of the benchmark's side-by-side table (docs/benchmarks.md). Stop it with
# glewlwyd-stop.sh DIR.
#
#   scripts/bench/glewlwyd-start.sh DIR [PORT]     PORT: else $GLEWLWYD_PORT, else a free one
#
# In DIR: glewlwyd.conf (loopback, no TLS, log level WARNING, log in glewlwyd.log), an RS256 key
# (oidc.key, oidc.pub), glewlwyd.pid, and the database made from the package's schema in WAL
# mode: DIR/glewlwyd.sqlite3, or the file $GLEWLWYD_DATABASE names (bench.py puts it on tmpfs).
# Then glewlwyd_peer.py provision configures it through the admin API: scope `bench`, users
# user01..user64 / bench-password (PBKDF2 with $GLEWLWYD_PBKDF2_ITERATIONS rounds, else
# Glewlwyd's 150,000), client bench / bench-secret-not-for-production, OIDC plugin `oidc`.
# Waits until discovery answers and prints PORT=, PID=, ISSUER=, TOKEN_ENDPOINT=,
# INTROSPECTION_ENDPOINT= and DISCOVERY_URL= lines. Needs glewlwyd, python3, openssl, curl.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: glewlwyd-start.sh DIR [PORT]}
port=${2:-${GLEWLWYD_PORT:-}}
binary=$(command -v glewlwyd || echo /usr/bin/glewlwyd)
[ -x "$binary" ] || { echo "glewlwyd is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
# The full schema: core and plugin tables, the admin user (admin / password), the database user
# and client modules. dbconfig-common's copy, because slim images drop /usr/share/doc.
schema=""
for candidate in /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3 \
                 /usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz; do
  [ -f "$candidate" ] && { schema=$candidate; break; }
done
[ -n "$schema" ] || { echo "glewlwyd's SQLite schema not found (reinstall the glewlwyd package)" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -f "$dir/glewlwyd.pid" ] && kill -0 "$(cat "$dir/glewlwyd.pid")" 2>/dev/null; then
  echo "glewlwyd already running in $dir (pid $(cat "$dir/glewlwyd.pid"))" >&2; exit 1
fi
[ -n "$port" ] || port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
database=${GLEWLWYD_DATABASE:-$dir/glewlwyd.sqlite3}

rm -f "$database" "$database-wal" "$database-shm" "$dir/glewlwyd.log"
# WAL is a property of the file: Glewlwyd's own connections then use it too (it never sets a
# journal mode itself, and with the rollback journal every write waits for several fsyncs).
python3 - "$schema" "$database" <<'PY'
import gzip, sqlite3, sys
with (gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt") as handle:
    script = handle.read()
connection = sqlite3.connect(sys.argv[2])
connection.executescript(script)
connection.execute("PRAGMA journal_mode=WAL")
connection.close()
PY
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/oidc.key" 2>/dev/null
openssl pkey -in "$dir/oidc.key" -pubout -out "$dir/oidc.pub"
# use_secure_connection is left out: 2.7.5 then asks for the key and certificate files even when false.
cat >"$dir/glewlwyd.conf" <<CONF
port=$port
bind_address="127.0.0.1"
external_url="http://127.0.0.1:$port"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_level="WARNING"
log_file="$dir/glewlwyd.log"
cookie_secure=0
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database =
{
  type = "sqlite3"
  path = "$database"
};
CONF

setsid "$binary" --config-file="$dir/glewlwyd.conf" >"$dir/stdout.log" 2>&1 </dev/null &
echo $! >"$dir/glewlwyd.pid"
trap '[ $? -eq 0 ] || "$here/glewlwyd-stop.sh" "$dir"' EXIT  # a failed start leaves nothing running

# $1: URL; polls for up to 10 s, giving up early when glewlwyd has exited.
wait_for() {
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    kill -0 "$(cat "$dir/glewlwyd.pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "glewlwyd did not answer $1" >&2
  tail -n 20 "$dir/stdout.log" "$dir/glewlwyd.log" >&2 2>/dev/null || true
  return 1
}
api="http://127.0.0.1:$port/api"
wait_for "http://127.0.0.1:$port/config"
python3 "$here/glewlwyd_peer.py" provision "$dir" "$port"
wait_for "$api/oidc/.well-known/openid-configuration"
echo "PORT=$port"
echo "PID=$(cat "$dir/glewlwyd.pid")"
echo "ISSUER=$api/oidc"
echo "TOKEN_ENDPOINT=$api/oidc/token"
echo "INTROSPECTION_ENDPOINT=$api/oidc/introspect"
echo "DISCOVERY_URL=$api/oidc/.well-known/openid-configuration"
