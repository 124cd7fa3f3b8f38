#!/usr/bin/env bash
# Stops the LemonLDAP::NG portal started by llng-start.sh (its process group, by pid).
LLNG_DIR=${LLNG_DIR:-/tmp/idconnect-peers/llng}
[ -f "$LLNG_DIR/server.pid" ] || exit 0
pid=$(cat "$LLNG_DIR/server.pid")
rm -f "$LLNG_DIR/server.pid"
kill -- -"$pid" 2>/dev/null || exit 0
for _ in $(seq 1 50); do kill -0 -- -"$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -9 -- -"$pid" 2>/dev/null || true
