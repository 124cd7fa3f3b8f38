#!/usr/bin/env bash
# Stops the django-oauth-toolkit peer started by oidc-op-start.sh (its process group, by pid).
DOT_DIR=${DOT_DIR:-/tmp/idconnect-peers/dot}
[ -f "$DOT_DIR/server.pid" ] || exit 0
pid=$(cat "$DOT_DIR/server.pid")
rm -f "$DOT_DIR/server.pid"
kill -- -"$pid" 2>/dev/null || exit 0
for _ in $(seq 1 50); do kill -0 -- -"$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -9 -- -"$pid" 2>/dev/null || true
