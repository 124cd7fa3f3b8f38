#!/usr/bin/env bash
# The container image as docs/operations.md ("Docker") describes it.
#
# Always: the Dockerfile's promises read from the file itself — a non-root numeric USER, a
# HEALTHCHECK through `idconnect healthcheck`, no configuration of its own in /etc/idconnect (the
# demo only under /usr/share/idconnect/demo-config), no issuer baked into the command, and a
# .dockerignore that keeps build folders and data out of the context.
# Where a Docker engine runs: builds the image and runs it — refused without an issuer, the demo
# with --dev signs alice in, the health check turns healthy, the process is not root. Without an
# engine (the development and CI machines) it says so and skips that part.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "docker-check: FAIL: $*" >&2; exit 1; }

dockerfile=Dockerfile
# The runtime stage, with `\`-continued lines joined.
runtime=$(awk '/^FROM /{stage++} stage==2' "$dockerfile" | sed -e ':join' -e '/\\$/{N; s/\\\n */ /; b join' -e '}')
user=$(printf '%s\n' "$runtime" | awk '$1=="USER"{print $2}' | tail -1)
[ -n "$user" ] || fail "the runtime stage has no USER"
uid=${user%%:*}
[[ "$uid" =~ ^[0-9]+$ ]] && [ "$uid" -ne 0 ] || fail "USER $user is not a numeric non-root uid (Kubernetes' runAsNonRoot needs a number)"
printf '%s\n' "$runtime" | grep -Eq '^HEALTHCHECK .*CMD \["/usr/local/bin/idconnect", "healthcheck"' || fail "no HEALTHCHECK through idconnect healthcheck"
printf '%s\n' "$runtime" | grep -Eq '^COPY +console-config +/etc/idconnect' && fail "the image ships the demo console-config as its configuration"
printf '%s\n' "$runtime" | grep -Eq '^COPY +console-config +/usr/share/idconnect/demo-config' || fail "the demo configuration is not at /usr/share/idconnect/demo-config"
printf '%s\n' "$runtime" | grep -q -- '--issuer' && fail "the image's command bakes in an issuer"
printf '%s\n' "$runtime" | grep -Eq '^CMD \["serve", "--config", "/etc/idconnect", "--host", "0.0.0.0"' || fail "the default command does not serve /etc/idconnect on 0.0.0.0"
for ignored in .build data .venv; do
  grep -qx "$ignored\*\?" .dockerignore || grep -qx "$ignored" .dockerignore || fail ".dockerignore does not leave out $ignored"
done
echo "docker-check: the Dockerfile: non-root uid $uid, HEALTHCHECK, no configuration of its own, no issuer baked in"

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  echo "docker-check: SKIP building and running the image: no Docker engine on this machine (docker info failed)"
  exit 0
fi

tag="idconnect-check:$$"
name="idconnect-check-$$"
trap 'docker rm -f "$name" >/dev/null 2>&1 || true; docker rmi "$tag" >/dev/null 2>&1 || true' EXIT
docker build -q -t "$tag" --build-arg IDCONNECT_BUILD_COMMIT="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" . >/dev/null
docker run --rm "$tag" --version | grep -Eq '^idconnect [0-9.]+ \(commit ' || fail "idconnect --version in the image"
if docker run --rm -v "$PWD/console-config:/etc/idconnect:ro" "$tag" >/dev/null 2>&1; then
  fail "the image served 0.0.0.0 without an issuer"
fi
port=$(( 30000 + RANDOM % 2000 ))
docker run -d --name "$name" -p "127.0.0.1:$port:8080" "$tag" serve --dev --config /usr/share/idconnect/demo-config --host 0.0.0.0 >/dev/null
for _ in $(seq 1 120); do
  [ "$(docker inspect --format '{{.State.Health.Status}}' "$name")" = healthy ] && break
  sleep 1
done
[ "$(docker inspect --format '{{.State.Health.Status}}' "$name")" = healthy ] || fail "the health check did not turn healthy"
[ "$(docker exec "$name" id -u)" = "$uid" ] || fail "the broker does not run as uid $uid"
base="http://127.0.0.1:$port"
redirect="http://localhost:3000/callback"
temp=$(curl -fs -X POST "$base/oauth/auth" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["temp_login_uri"])') || fail "automated grant"
temp="$base${temp#http://localhost:8080}"
location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$temp" -d client_id=kid_demo -d "redirect_uri=$redirect" \
  -d response_type=code -d username=alice -d password=wonderland)
[[ "$location" == *code=* ]] || fail "alice could not sign in to the demo"
echo "docker-check: OK (image built; refused without an issuer; demo with --dev; healthy; uid $uid; alice signed in)"
