#!/usr/bin/env bash
# Stops the PostgreSQL started by scripts/peers/postgres-start.sh DIR (fast shutdown).
#   scripts/peers/postgres-stop.sh DIR [--keep]   (--keep: leave DIR for a later start)
set -euo pipefail
dir=${1:?usage: postgres-stop.sh DIR [--keep]}
bin=${POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ -f "$dir/data/postmaster.pid" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  else
    "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
fi
[ "${2:-}" = "--keep" ] || rm -rf "$dir"
