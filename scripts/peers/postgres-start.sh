#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 (Debian's `postgresql` package) on 127.0.0.1 for the tests.
#
#   scripts/peers/postgres-start.sh DIR    → prints the server's URL on stdout
#
# DIR holds the cluster (DIR/data), its log and port. A fresh DIR gets a new cluster on a free
# port, with a superuser `idconnect` and a random password (SCRAM) and TLS on with a self-signed
# certificate (the printed URL says sslmode=disable; tests that want TLS change it); a DIR that already holds a
# stopped cluster is started again on the same port (the multi-instance test restarts the
# database this way). PostgreSQL refuses to run as root, so as root the server runs as the
# `postgres` system user the Debian package creates. Stop with scripts/peers/postgres-stop.sh DIR.
set -euo pipefail
dir=${1:?usage: postgres-start.sh DIR}
bin=${POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$bin/initdb" ] || { echo "postgres-start: initdb not found (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
if [ ! -f "$dir/data/PG_VERSION" ]; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  password=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
  echo "$port" > "$dir/port"
  echo "$password" > "$dir/password"
  chmod 600 "$dir/password"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/port" "$dir/password"
  # A self-signed certificate, as a stock server has: sslmode=prefer must work with it, require must not.
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/server.key" -out "$dir/server.crt" -days 7 \
    -subj "/CN=idconnect-test-postgres" >/dev/null 2>&1
  chmod 600 "$dir/server.key"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/server.key" "$dir/server.crt"
  as_owner "$bin/initdb" -D "$dir/data" -U idconnect --pwfile="$dir/password" --auth=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
fi
port=$(cat "$dir/port")
password=$(cat "$dir/password")
# Test settings: loopback only, socket in DIR, no fsync (throwaway data), room for several brokers.
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
  -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
  start >/dev/null || { tail -20 "$dir/server.log" >&2; exit 1; }
echo "postgres://idconnect:$password@127.0.0.1:$port/postgres?sslmode=disable"
