#!/usr/bin/env bash
# Measures LDAP sign-ins through the broker against raw libldap on the same slapd (SPEC §8):
#   1. raw binds/s and raw "search user + search groups + bind"/s (scripts/bench/ldap-raw.c);
#   2. password-grant logins/s through `idconnect serve` (ldap connector, search then bind, groups),
#      driven by wrk over loopback.
# Starts its own slapd (ports 10589/10836) and broker (port 18089); stops both on exit.
# Env: BUILD=debug|release (default debug: the binary under .build/$BUILD), SECONDS_PER_RUN (10),
#      CONNECTIONS (wrk connections, 16), THREADS (raw client threads, 4).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-debug}
RUN=${SECONDS_PER_RUN:-10}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-4}
work=$(mktemp -d /tmp/idconnect-bench.XXXXXX)
export LDAP_DIR="$work/ldap" LDAP_PORT=10589 LDAPS_PORT=10836
broker_pid=""
cleanup() {
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
  scripts/peers/ldap-stop.sh || true
  rm -rf "$work"
}
trap cleanup EXIT

scripts/peers/ldap-start.sh >/dev/null
cc -O2 -o "$work/ldap-raw" scripts/bench/ldap-raw.c -lldap -llber -lpthread
raw_bind=$("$work/ldap-raw" "ldap://127.0.0.1:$LDAP_PORT" bind "$THREADS" "$RUN")
raw_login=$("$work/ldap-raw" "ldap://127.0.0.1:$LDAP_PORT" login "$THREADS" "$RUN")
raw_serial=$("$work/ldap-raw" "ldap://127.0.0.1:$LDAP_PORT" login 1 "$RUN")

mkdir -p "$work/config/environments"
cat > "$work/config/server.yaml" <<YAML
server:
  issuer: http://127.0.0.1:18089
signing:
  algorithm: ${SIGNING:-ES256}
YAML
cat > "$work/config/environments/bench.yaml" <<YAML
environments:
  - appKey: kid_bench
    appSecret: bench-secret-123456
    defaultAuthService: corp
    authServices:
      - id: corp
        redirectUri: [ "https://app.example.com/cb" ]
        refresh: false
        provider:
          type: ldap
          remoteService: ldap://127.0.0.1:$LDAP_PORT
          authentication: { username: "cn=readonly,dc=example,dc=org", password: readonlypw }
          options: { baseDn: "ou=people,dc=example,dc=org", groupBaseDn: "ou=groups,dc=example,dc=org" }
          allowedAttributes: [ id, audience, email, name, groups ]
YAML
".build/$BUILD/idconnect" serve --config "$work/config" --port 18089 --storage "sqlite:$work/broker.sqlite" \
  >"$work/broker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18089/healthz >/dev/null && break; sleep 0.1; done
body="grant_type=password&client_id=kid_bench&username=alice&password=alicepw"
auth=$(printf 'kid_bench:bench-secret-123456' | base64)
check=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Basic $auth" -d "$body" http://127.0.0.1:18089/oauth/token)
[ "$check" = 200 ] || { echo "password grant answered $check" >&2; tail -5 "$work/broker.log" >&2; exit 1; }
cat > "$work/login.lua" <<LUA
wrk.method = "POST"
wrk.body = "$body"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $auth"
LUA
wrk -t2 -c"$CONNECTIONS" -d"${RUN}s" --latency -s "$work/login.lua" http://127.0.0.1:18089/oauth/token >"$work/wrk.txt"
broker=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt")
p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
non2xx=$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")
wrk -t1 -c1 -d"${RUN}s" --latency -s "$work/login.lua" http://127.0.0.1:18089/oauth/token >"$work/wrk1.txt"
serial_p50=$(awk '$1 == "50%" {print $2}' "$work/wrk1.txt")
rss=$(awk '/VmHWM/ {print $2 " " $3}' "/proc/$broker_pid/status")
echo "build=$BUILD signing=${SIGNING:-ES256} load=$(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw binds/s ($THREADS threads):                       $raw_bind"
echo "raw search+groups+bind/s ($THREADS threads):          $raw_login"
echo "broker password-grant logins/s (wrk $CONNECTIONS conns): $broker  p50=$p50 p99=$p99 non-2xx=${non2xx:-0} peak RSS=$rss"
echo "one at a time: broker login p50=$serial_p50; raw search+groups+bind takes $(awk -v r="$raw_serial" 'BEGIN { printf "%.3f", 1000 / r }')ms each"
awk -v b="$broker" -v r="$raw_bind" -v l="$raw_login" \
  'BEGIN { printf "ratio broker/raw-bind = %.3f   broker/raw-search+bind = %.3f\n", b / r, b / l }'
