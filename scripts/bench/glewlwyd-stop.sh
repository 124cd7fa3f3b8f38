#!/usr/bin/env bash
# Stops the glewlwyd that glewlwyd-start.sh DIR started (the pid in DIR/glewlwyd.pid) and waits
# until it has exited (5 s, then SIGKILL).
dir=${1:?usage: glewlwyd-stop.sh DIR}
pidfile="$dir/glewlwyd.pid"
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
rm -f "$pidfile"
kill "$pid" 2>/dev/null || exit 0
for _ in $(seq 1 50); do
  kill -0 "$pid" 2>/dev/null || exit 0
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null || true
