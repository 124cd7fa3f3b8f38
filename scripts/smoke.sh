#!/usr/bin/env bash
# Drives the built `idconnect` binary as an operator and an app would: config check (good and
# bad), serve on the shipped console-config (debug logging, an audit file), the automated grant
# with curl, code exchange, the admin commands against the running broker, and a graceful stop.
# Exits non-zero on any deviation.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/idconnect"
work=$(mktemp -d)
port=$(( 18000 + RANDOM % 2000 ))
base="http://127.0.0.1:$port"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

fail() { echo "smoke: FAIL: $*" >&2; echo "--- server log ---" >&2; tail -20 "$work/serve.log" >&2 || true; exit 1; }
# Runs a command and looks for a fixed string in all of its output. Not `cmd | grep -q`: grep
# stops reading at the first match, and under pipefail the writer's SIGPIPE then fails the check.
output_has() { local text=$1 out; shift; out=$("$@") && grep -qF -- "$text" <<<"$out"; }

"$bin" config check >/dev/null || fail "config check on the shipped console-config"
mkdir -p "$work/bad" && printf 'environments:\n  - appKey: k\n    typo: 1\n' > "$work/bad/x.yaml"
if "$bin" config check --config "$work/bad" 2>"$work/bad.out"; then fail "config check accepted a bad config"; fi
grep -q "typo: unknown key" "$work/bad.out" || fail "config check did not name the unknown key"
if "$bin" serve --config "$work/bad" --port "$port" --storage "sqlite:$work/x.sqlite" 2>/dev/null; then fail "serve started on a bad config"; fi

cp -r console-config "$work/config"
printf 'server:\n  audit:\n    file: %s\n' "$work/audit.jsonl" > "$work/config/audit.yaml"
store="sqlite:$work/data/idconnect.sqlite"
# Debug logging: no secret may appear even there.
IDCONNECT_LOG_LEVEL=debug "$bin" serve --config "$work/config" --port "$port" --issuer "$base" --storage "$store" \
  >"$work/serve.out" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do curl -fs "$base/.well-known/openid-configuration" >/dev/null 2>&1 && break; sleep 0.1; done
output_has '"kty":"RSA"' curl -fs "$base/.well-known/jwks.json" || fail "jwks"
grep -q "Identity Connect is listening on http://127.0.0.1:$port" "$work/serve.out" || fail "no startup summary"
grep -q "demo-users (static, default)" "$work/serve.out" || fail "the startup summary does not list the auth services"

redirect="http://localhost:3000/callback"
temp=$(curl -fs -X POST "$base/oauth/auth" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["temp_login_uri"])') || fail "automated grant"
case "$temp" in "$base/oauth/authenticate/"*) ;; *) fail "temp_login_uri not on the issuer: $temp" ;; esac
location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$temp" \
  -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code -d username=alice -d password=wonderland)
# `iss` names the broker (RFC 9207); `code` is always the last parameter (the Kinvey Android SDK).
case "$location" in "$redirect?iss="*"&code="*) ;; *) fail "temp login redirect: $location" ;; esac
code="${location##*code=}"
tokens=$(curl -fs -u kid_demo:demo-app-secret-change-me "$base/v3/oauth/token" \
  -d grant_type=authorization_code -d "code=$code" -d "redirect_uri=$redirect" -d client_id=kid_demo) || fail "code exchange"
grep -q '"access_token"' <<<"$tokens" || fail "no access token"
grep -q '"refresh_token"' <<<"$tokens" || fail "no refresh token"
access=$(python3 -c 'import sys, json; print(json.load(sys.stdin)["access_token"])' <<<"$tokens")
refresh=$(python3 -c 'import sys, json; print(json.load(sys.stdin)["refresh_token"])' <<<"$tokens")
output_has '"id":"alice"' curl -fs "$base/oauth/validate?access_token=$access" || fail "validate"
curl -fs "$base/healthz" >/dev/null || fail "healthz"
curl -fs "$base/readyz" >/dev/null || fail "readyz"
output_has 'idconnect_logins_total{connector="static",outcome="success"}' curl -fs "$base/metrics" || fail "metrics"

# SIGHUP: a bad file is rejected and the broker keeps serving; a good one takes effect.
printf 'environments:\n  - appKey: broken\n    typo: 1\n' > "$work/config/environments/broken.yaml"
kill -HUP "$pid"; sleep 1
grep -q "reload rejected" "$work/serve.log" || fail "bad reload not reported"
curl -fs "$base/oauth/validate?access_token=$access" >/dev/null || fail "not serving after a bad reload"
rm "$work/config/environments/broken.yaml"
kill -HUP "$pid"; sleep 1
grep -q "configuration reloaded" "$work/serve.log" || fail "good reload not reported"

# keys rotate: the running broker publishes both keys after SIGHUP-independent maintenance or restart;
# here we check the command itself and that the old token still validates.
output_has "New active signing key" "$bin" keys rotate --config "$work/config" --storage "sqlite:$work/data/idconnect.sqlite" || fail "keys rotate"
curl -fs "$base/oauth/validate?access_token=$access" >/dev/null || fail "old token after key rotation"

# A failed sign-in, then the admin commands against the running broker.
temp2=$(curl -fs -X POST "$base/oauth/auth" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["temp_login_uri"])') || fail "automated grant"
curl -s -o /dev/null -X POST "$temp2" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  -d username=bob -d password=not-bobs-password
output_has "$(printf 'alice\t')" "$bin" sessions list --config "$work/config" --storage "$store" || fail "sessions list"
output_has '"user":"alice"' "$bin" sessions list --config "$work/config" --storage "$store" --user ALICE --json || fail "sessions list --json"
output_has "(none)" "$bin" instances list --config "$work/config" --storage "$store" || fail "instances list"
output_has "Ended 1 session(s) of alice" "$bin" sessions revoke --config "$work/config" --storage "$store" --user alice \
  || fail "sessions revoke"
# The running broker sees a revocation made by another process within 0.5 s (docs/operations.md).
for _ in $(seq 1 10); do
  status=$(curl -s -o /dev/null -w '%{http_code}' "$base/oauth/validate?access_token=$access")
  [ "$status" = 401 ] && break
  sleep 0.1
done
[ "$status" = 401 ] || fail "a revoked user's token still validates after 1 s ($status)"

# Audit events: on their own log label, and in the audit file.
output_has '"logger":"idconnect.audit"' cat "$work/serve.log" || fail "no audit line in the log"
sleep 0.5
for event in sign_in.succeeded sign_in.failed; do
  grep -q "\"event\":\"$event\"" "$work/audit.jsonl" || fail "no $event in the audit file"
done
grep -q '"reason":"operator"' "$work/audit.jsonl" || fail "the operator's revocation is not in the audit file"
grep -q '"event":"signing_key.rotated"' "$work/audit.jsonl" || fail "the key rotation is not in the audit file"

for secret in "$code" "$access" "$refresh" wonderland not-bobs-password demo-app-secret-change-me; do
  for file in "$work/serve.log" "$work/serve.out" "$work/audit.jsonl"; do
    if grep -qF -- "$secret" "$file"; then fail "a secret or token appeared in $(basename "$file")"; fi
  done
done
python3 -c 'import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$work/serve.log" || fail "log lines are not JSON"

# docs/openapi.yaml is valid OpenAPI 3.1 and every operation in it answers as documented; signed in
# as alice through the demo app, the token and userinfo answers match their schemas too.
python3 scripts/openapi/check.py --base-url "$base" --client kid_demo:demo-app-secret-change-me --user alice:wonderland \
  >"$work/openapi.out" 2>&1 || { tail -30 "$work/openapi.out" >&2; fail "the live broker and docs/openapi.yaml disagree"; }

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "serve did not stop on SIGTERM"
echo "smoke: OK (config check, serve and its summary, automated grant, code exchange, validate, health, metrics, SIGHUP reload, keys rotate, sessions and instances commands, audit events, the OpenAPI document, JSON debug logs without secrets, SIGTERM)"
