#!/usr/bin/env bash
# Stops the slapd started by ldap-start.sh (same LDAP_DIR) and waits until it has exited.
LDAP_DIR=${LDAP_DIR:-/tmp/idconnect-peers/ldap}
pidfile="$LDAP_DIR/slapd.pid"
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
kill "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null; rm -f "$pidfile"
