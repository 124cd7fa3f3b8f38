#!/usr/bin/env bash
# Stops the SimpleSAMLphp IdP started by ssp-idp-start.sh: its whole process group, by pid (the PHP
# workers of the built-in server outlive their parent).
SSP_DIR=${SSP_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/ssp-idp}
[ -f "$SSP_DIR/server.pid" ] || exit 0
pid=$(cat "$SSP_DIR/server.pid")
rm -f "$SSP_DIR/server.pid"
kill -- -"$pid" 2>/dev/null || exit 0
for _ in $(seq 1 50); do kill -0 -- -"$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -9 -- -"$pid" 2>/dev/null || true
