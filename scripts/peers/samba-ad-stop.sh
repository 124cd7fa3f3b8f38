#!/usr/bin/env bash
# Stops the Samba AD DC started by samba-ad-start.sh (same SAMBA_DIR) and waits until its ports are free.
SAMBA_DIR=${SAMBA_DIR:-/tmp/idconnect-peers/samba}
pidfile="$SAMBA_DIR/samba.pid"
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
kill "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null; rm -f "$pidfile"
