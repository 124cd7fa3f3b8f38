#!/usr/bin/env bash
# Stops the pysaml2 IdP started by pysaml2-idp-start.sh (its process group, by pid).
P2_DIR=${P2_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/pysaml2-idp}
[ -f "$P2_DIR/server.pid" ] || exit 0
pid=$(cat "$P2_DIR/server.pid")
rm -f "$P2_DIR/server.pid"
kill -- -"$pid" 2>/dev/null || exit 0
for _ in $(seq 1 50); do kill -0 -- -"$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -9 -- -"$pid" 2>/dev/null || true
