#!/usr/bin/env bash
# Runs the README's run command exactly as the README writes it (the first line of its "Two
# commands" block), in a fresh clone of this checkout, and signs alice in the way the README's
# tour does. Fails when the broker does not start on the embedded defaults, does not print its
# version, or a person cannot sign in.
#
# `--fresh-machine` (CI): first removes the -dev packages a fresh Debian machine lacks and that the
# run command must install itself (libqrencode-dev, libmaxminddb-dev, libldap-dev; needs root or
# sudo), and checks afterwards that the run command installed them again.
#
# `--in-place` (CI, whose checkout is itself a fresh clone that scripts/test.sh has just built from
# nothing): runs the command in this checkout instead of a new clone, so the second build is the
# incremental one a newcomer's second run sees, not another 20 minutes of compiling. Needs a
# checkout without data/ (the run command creates it; it is removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
root=$(pwd)
fresh_machine=false in_place=false
for arg in "$@"; do
  case "$arg" in
    --fresh-machine) fresh_machine=true ;;
    --in-place) in_place=true ;;
    *) echo "usage: scripts/readme-check.sh [--fresh-machine] [--in-place]" >&2; exit 2 ;;
  esac
done
build_only_dev_packages=(libqrencode-dev libmaxminddb-dev libldap-dev)

work=$(mktemp -d)
pid=""
# The run command starts idconnect in a process group of its own: the whole group goes at the end.
clone="$work/clone"
if $in_place; then
  clone="$root"
  [ ! -e "$root/data" ] || { echo "readme-check: FAIL: --in-place needs a checkout without data/" >&2; exit 1; }
fi
cleanup() {
  if [ -n "$pid" ]; then
    kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    sleep 1
  fi
  if $in_place; then rm -rf "$root/data"; fi
  rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT
fail() { echo "readme-check: FAIL: $*" >&2; tail -30 "$work/serve.log" >&2 || true; exit 1; }

# The run command, as the README shows it: the first command of the block after "## Two commands".
command_line=$(awk '/^## Two commands/ {found=1} found && /^```sh/ {getline; print; exit}' README.md | sed 's/[[:space:]]*#.*$//')
[ -n "$command_line" ] || fail "no run command found in README.md"
echo "readme-check: the README's run command: $command_line"

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if $fresh_machine; then
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get remove -y -qq "${build_only_dev_packages[@]}" >/dev/null
  for package in "${build_only_dev_packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ] || fail "could not remove $package"
  done
  echo "readme-check: removed ${build_only_dev_packages[*]} (a fresh machine lacks them)"
fi

$in_place || git clone --quiet "$root" "$clone"
# The default port 8080 may be taken on a CI machine; everything else is the README's command.
port=8080
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then port=$(( 28000 + RANDOM % 2000 )); fi
extra=""
[ "$port" != 8080 ] && extra=" --port $port"
started=$(date +%s)
(cd "$clone" && exec setsid bash -c "exec $command_line$extra" >"$work/serve.out" 2>"$work/serve.log") &
pid=$!
base="http://127.0.0.1:$port"
# A fresh clone builds first (several minutes on two cores; give up after 40).
for _ in $(seq 1 4800); do
  curl -fs "$base/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "the run command exited"
  sleep 0.5
done
curl -fs "$base/readyz" >/dev/null || fail "the broker did not become ready"
echo "readme-check: ready $(( $(date +%s) - started ))s after the run command"
grep -q "Identity Connect is listening" "$work/serve.out" || fail "no startup summary"
grep -Eq "^  version  [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]+" "$work/serve.out" || fail "the startup summary names no version and commit"
if $fresh_machine; then
  for package in "${build_only_dev_packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || fail "the run command did not install $package"
  done
fi

redirect="http://localhost:3000/callback"
temp=$(curl -fs -X POST "$base/oauth/auth" -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["temp_login_uri"])') || fail "automated grant"
location=$(curl -s -o /dev/null -w '%{redirect_url}' -X POST "$temp" \
  -d client_id=kid_demo -d "redirect_uri=$redirect" -d response_type=code -d username=alice -d password=wonderland)
code="${location##*code=}"
curl -fs -u kid_demo:demo-app-secret-change-me "$base/oauth/token" -d grant_type=authorization_code -d "code=$code" \
  -d "redirect_uri=$redirect" -d client_id=kid_demo | grep -q '"access_token"' || fail "code exchange"
[ -f "$clone/data/idconnect.sqlite" ] || fail "the embedded SQLite database is not where the README says"
where=$($in_place && echo "this checkout" || echo "a fresh clone")
echo "readme-check: OK ($command_line on $where$($fresh_machine && echo ' of a machine without the -dev packages'); alice signed in)"
