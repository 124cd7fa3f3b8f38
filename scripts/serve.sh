#!/usr/bin/env bash
# The README's run command: runs the broker on the embedded defaults (or on what the arguments
# say; they go to `idconnect serve` unchanged). On a fresh machine it first installs the Debian
# packages the build needs (scripts/install-deps.sh --build-only: as root or with sudo, silent
# when nothing is missing), then builds `idconnect` (the first build takes several minutes).
# Without --config it uses ./console-config, or the checkout's when the current directory has none.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null 2>&1 || { echo "serve.sh: no Swift toolchain on PATH (Swift 6 is needed: https://swift.org/install)" >&2; exit 1; }
"$root/scripts/install-deps.sh" --build-only
swift build --package-path "$root" --product idconnect
args=("$@")
has_config=false
for arg in "$@"; do
  case "$arg" in --config|--config=*) has_config=true ;; esac
done
if ! $has_config && [ ! -d ./console-config ]; then
  args=(--config "$root/console-config" "${args[@]}")
fi
exec "$(swift build --package-path "$root" --show-bin-path)/idconnect" serve "${args[@]}"
