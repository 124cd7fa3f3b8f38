#!/usr/bin/env bash
# Runs the conformance port (Basic OP + Config OP plans, the Form Post Basic OP plan and the
# Back-Channel OP plan, docs/conformance.md) against the real `idconnect` binary over HTTPS: a CA and
# a server certificate made here with openssl, the shipped console-config plus a second client and a
# back-channel logout client, `server.tls` as an operator writes it and no issuer (so the broker's
# own https default is what the suite sees). One result line per module; each plan's results are
# then compared with its expected file (compare.py): an unexpected FAIL, or an expected FAIL that no
# longer fails, fails this script.
# Usage: scripts/conformance/run.sh [path/to/idconnect]   (default: the debug build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
bin="${1:-$(swift build --show-bin-path)/idconnect}"

# The port's Python packages, pinned, in the project's own venv.
venv="$root/.venv-conformance"
if ! cmp -s "$here/requirements.txt" "$venv/.installed" 2>/dev/null; then
  echo "installing the conformance port's Python packages into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$venv/.installed"
fi

# The verdict rules first: what fails CI must be what docs/conformance.md says.
"$venv/bin/python" "$here/test_compare.py"

work=$(mktemp -d /tmp/idc-conformance.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A test CA and a server certificate for 127.0.0.1 / localhost (P-256, two days).
tls="$work/config/tls"
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=idconnect conformance CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout "$tls/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$work/ext.cnf"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
  -extfile "$work/ext.cnf" -out "$tls/server.pem" 2>/dev/null
chmod 600 "$tls/server.key"

# A port the kernel reports free (a random one could be in use by another test's connection).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# The shipped configuration, served over TLS, plus the second client and the back-channel logout
# client. That one's backchannelLogoutUri and post-logout redirect URI are on the port's own
# listener (the relying party's endpoints, http on 127.0.0.1): its port is chosen here, read by
# conformance-logout.yaml as ${env:IDC_CONFORMANCE_RP_PORT} and given to the port as --rp-listen.
cp -r console-config/. "$work/config/"
cp -r "$here/config/." "$work/config/"
second_secret=$(openssl rand -hex 16)
printf '%s\n' "$second_secret" > "$work/config/secrets/conformance2-app-secret"
logout_secret=$(openssl rand -hex 16)
printf '%s\n' "$logout_secret" > "$work/config/secrets/conformance-logout-app-secret"
rp_port=$(free_port)
export IDC_CONFORMANCE_RP_PORT="$rp_port"
cat > "$work/config/server.yaml" <<'YAML'
server:
  tls:
    certificate: ${file:tls/server.pem}
    key: ${file:tls/server.key}
signing:
  algorithm: RS256
YAML

# `config check` accepts the pair, and names server.tls.key for a key of another certificate.
"$bin" config check --config "$work/config" >/dev/null
mkdir -p "$work/bad/tls"
cp -r "$work/config/." "$work/bad/"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/bad/tls/server.key" 2>/dev/null
if "$bin" config check --config "$work/bad" >"$work/bad.out" 2>&1; then
  echo "conformance: config check accepted a key that does not match the certificate" >&2; exit 1
fi
grep -q "server.tls.key" "$work/bad.out" || { echo "conformance: config check did not name server.tls.key:" >&2; cat "$work/bad.out" >&2; exit 1; }

port=$(free_port)
while [ "$port" = "$rp_port" ]; do port=$(free_port); done
"$bin" serve --config "$work/config" --port "$port" --storage "sqlite:$work/data/db.sqlite" >"$work/serve.log" 2>&1 &
pid=$!
issuer="https://127.0.0.1:$port"
for _ in $(seq 1 300); do
  curl -fs --cacert "$work/ca.pem" "$issuer/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { echo "conformance: idconnect exited:" >&2; cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
curl -fs --cacert "$work/ca.pem" "$issuer/healthz" >/dev/null || { echo "conformance: no HTTPS on $issuer" >&2; exit 1; }
echo "== conformance: idconnect serves $issuer (certificate from a CA made for this run)"

results="${IDCONNECT_CONFORMANCE_RESULTS:-$work/results}"
mkdir -p "$results"
# run_plan NAME EXPECTED [ARGUMENTS…]: runs the port with the run's user and the ARGUMENTS (the
# clients, the plan), keeps NAME.txt and NAME.json, and compares the lines with EXPECTED.
run_plan() {
  local name=$1 expected=$2
  shift 2
  set +e
  "$venv/bin/python" "$here/oidc_conformance.py" --issuer "$issuer" --ca-bundle "$work/ca.pem" \
    --redirect-uri http://localhost:3000/callback --username alice --password wonderland "$@" \
    --json "$results/$name.json" | tee "$results/$name.txt"
  set -e
  "$venv/bin/python" "$here/compare.py" "$here/$expected" "$results/$name.txt"
}
demo_clients=(--client-id kid_demo --client-secret "$(cat console-config/secrets/demo-app-secret)"
              --second-client-id kid_conf2 --second-client-secret "$second_secret")

run_plan results expected.txt "${demo_clients[@]}"
# The Form Post Basic OP plan: the Basic OP modules with response_mode=form_post (the answers come
# back as the broker's auto-posting page, read as the suite's browser submits it).
echo "== conformance: Form Post Basic OP"
run_plan results-form-post expected-form-post.txt "${demo_clients[@]}" --plan basic --response-mode form_post
# The Back-Channel OP plan: RP-initiated logout, and the broker's logout token POSTed to the
# relying party's endpoint that the port serves on 127.0.0.1:$rp_port.
echo "== conformance: Back-Channel OP"
run_plan results-backchannel expected-backchannel.txt --plan backchannel --rp-listen "127.0.0.1:$rp_port" \
  --client-id kid_conflogout --client-secret "$logout_secret"
