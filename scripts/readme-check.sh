#!/usr/bin/env bash
# Runs the README's run command exactly as written (`swift run idconnect serve`, in a scratch
# copy of the shipped console-config's directory layout so no data lands in the checkout) and
# signs alice in the way the README's tour does. Fails when the broker does not start on the
# embedded defaults or a person cannot sign in.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
root=$(pwd)
work=$(mktemp -d)
# `swift run` starts idconnect as a child of its own: the whole process group goes at the end.
trap 'kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "readme-check: FAIL: $*" >&2; tail -20 "$work/serve.log" >&2 || true; exit 1; }

cp -r console-config "$work/console-config"
# The default port 8080 may be taken on a CI machine; everything else is the README's command.
port=8080
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then port=$(( 28000 + RANDOM % 2000 )); fi
extra=()
[ "$port" != 8080 ] && extra=(--port "$port")
(cd "$work" && exec setsid swift run --package-path "$root" idconnect serve "${extra[@]}" >"$work/serve.out" 2>"$work/serve.log") &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 600); do curl -fs "$base/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs "$base/readyz" >/dev/null || fail "the broker did not become ready"
grep -q "Identity Connect is listening" "$work/serve.out" || fail "no startup summary"

redirect="http://localhost:3000/callback"
temp=$(curl -fs -X POST "$base/oauth/auth" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["temp_login_uri"])') || fail "automated grant"
location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$temp" \
  -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code -d username=alice -d password=wonderland)
code="${location##*code=}"
curl -fs -u kid_demo:demo-app-secret-change-me "$base/oauth/token" -d grant_type=authorization_code -d "code=$code" \
  -d "redirect_uri=$redirect" -d client_id=kid_demo | grep -q '"access_token"' || fail "code exchange"
[ -f "$work/data/idconnect.sqlite" ] || fail "the embedded SQLite database is not where the README says"
echo "readme-check: OK (swift run idconnect serve on the shipped console-config; alice signed in)"
