#!/usr/bin/env bash
# Runs the libFuzzer targets (docs/fuzzing.md): builds Fuzz/ with -sanitize=fuzzer,address into
# .build-fuzz, then runs each target for N seconds on its checked-in seeds plus a working corpus
# kept in .build-fuzz/corpus. Fails on any crash, property violation, leak, timeout or OOM, and
# prints executions per second and coverage per target.
#
#   scripts/fuzz/run.sh [--seconds N] [--runs N --seed S] [--no-build] [target ...]
#
# Default: 60 s per target, all targets. --runs N stops each target after N inputs instead (with
# --seed, a reproducible run: what .ci/run uses).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds=60 runs="" seed="" build=1 targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) targets+=("$1"); shift ;;
    esac
done
all=(jws jwks software-statement form json config ldap-filter redirect-uri user-agent authlink saml-response saml-decrypt)
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

max_len() {
    case "$1" in
        saml-response|saml-decrypt) echo 65536 ;;
        config) echo 16384 ;;
        jws|jwks|software-statement|json|form) echo 20480 ;;
        *) echo 4096 ;;
    esac
}

out="$root/.build-fuzz"
mkdir -p "$out"
if [ "$build" = 1 ]; then
    echo "building the fuzz harness (first build: several minutes)…"
    # SwiftPM re-plans a path dependency only when the root manifest changes: without this, files
    # added to the broker's targets since the last fuzz build are missing from it.
    touch "$root/Fuzz/Package.swift"
    (cd "$root/Fuzz" && swift build --build-path "$out" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library) \
        > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "fuzz build failed (log: $out/build.log)" >&2; exit 1; }
fi
binary="$out/debug/idconnect-fuzz"
[ -x "$binary" ] || { echo "no harness at $binary; run without --no-build" >&2; exit 1; }

failed=0
printf '%-20s %8s %10s %8s %8s  %s\n' target seconds "execs" "exec/s" "cov" result
for target in "${targets[@]}"; do
    work="$out/corpus/$target" artifacts="$out/artifacts/$target"
    mkdir -p "$work" "$artifacts"
    log="$out/logs/$target.log"
    mkdir -p "$(dirname "$log")"
    set +e
    # Leaks are checked per input (libFuzzer re-runs an input whose mallocs outnumber its frees
    # under LeakSanitizer); the at-exit check would only report the process's lifetime globals.
    # Swift's own crash handler is off so AddressSanitizer reports the fault.
    SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$root/Fuzz/lsan.supp:print_suppressions=0:leak_check_at_exit=0" \
        IDC_FUZZ_TARGET="$target" "$binary" ${runs:+-runs=$runs} ${seed:+-seed=$seed} -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$target")" -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$work" "$root/Fuzz/corpus/$target" > "$log" 2>&1
    status=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -oE '(DONE|pulse|NEW|REDUCE|INITED) +cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
    if [ $status -eq 0 ]; then result=ok; else result="FAILED (exit $status; see $log and $artifacts)"; failed=1; fi
    printf '%-20s %8s %10s %8s %8s  %s\n' "$target" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
done
if [ $failed = 1 ]; then
    echo "a target failed: fix the finding, then add the input from .build-fuzz/artifacts to Fuzz/findings/<target>/" >&2
    exit 1
fi
