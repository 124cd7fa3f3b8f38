#!/usr/bin/env python3
"""Interleaved A/B of broker builds under the same loads (docs/benchmarks.md, "Comparing two builds").

    scripts/ab.py BEFORE AFTER [MORE ...] [--loads login1,login16,exchange,refresh] [--rounds 4] [--seconds 8] [--signing ES256]

BEFORE, AFTER, ... are `idconnect` binaries (copy `.build/release/idconnect` aside after each
release build). Each round starts the sample AuthLink and each binary in turn on fresh data, as
scripts/profile.py does, and runs every load against it with wrk; the order of the binaries
rotates between rounds, so that a drift of the machine's speed hits each alike and each takes
every place in the order. A load is a
scripts/profile.py scenario name followed by its number of connections (`login1`, `exchange32`;
32 when omitted; `floor` is the static route). It prints every measurement as it is made,
then the medians: requests per second, p50, the broker's CPU per request, and for two binaries
how many rounds the second won.

On two shared cores the spread between rounds of one binary is often 10–20%, and one binary
against a copy of itself (an A/A run) has come out 20% apart on one load over two rounds: trust
a difference that holds in most of many rounds, and say how many it rests on.
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load  # noqa: E402
from profile import scenario, start_broker  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_load(text):
    """`login16` → ("login", 16); `exchange` → ("exchange", 32)."""
    match = re.fullmatch(r"([a-z-]+?)(\d*)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a load: {text!r} (a scenario name, then connections)")
    return match.group(1), int(match.group(2) or 32)


def measure(binary, loads, seconds, label, signing=None):
    """Starts the AuthLink and `binary` (signing with `signing` when given) on fresh data and runs
    each load once; {load: result}."""
    workdir = tempfile.mkdtemp(prefix="idconnect-ab-")
    os.environ["BENCH_TMP"] = workdir
    processes = []
    results = {}
    try:
        port = start_broker(workdir, binary, processes, signing)
        load.watch("broker", processes[-1].pid)
        for text in loads:
            name, connections = parse_load(text)
            # Enough single-use codes, tokens and sign-in pages for the whole load.
            pool = (1200 if name == "login" else 2500) * seconds
            arguments = scenario(name, port, pool)
            result = load.run_wrk(f"{text} ({label})", port=port, duration=seconds, connections=connections,
                                  threads=min(2, connections), **arguments)
            results[text] = result
            print(f"{label} {text:>12}: {result.requests_per_second:9,.0f}/s  p50 {result.p50_ms:6.2f} ms  "
                  f"CPU {result.cpu_us.get('broker', 0):7.0f} µs  errors {result.errors}", flush=True)
    finally:
        load.watch("broker", None)
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
        shutil.rmtree(workdir, ignore_errors=True)
    return results


def parse_comparison(parser):
    """Parses the command line of a comparison (binaries, --loads, ...) and checks what it names
    and what every comparison needs: (options, loads, a label per binary)."""
    options = parser.parse_args()
    loads = options.loads.split(",")
    for text in loads:
        parse_load(text)
    for binary in options.binaries:
        if not os.access(binary, os.X_OK):
            parser.error(f"not an executable: {binary}")
    if not os.access(os.path.join(ROOT, ".build", "release", "authlink-sample"), os.X_OK):
        parser.error("build the sample AuthLink first: swift build -c release --product authlink-sample")
    return options, loads, [f"{index}:{os.path.basename(binary)}" for index, binary in enumerate(options.binaries)]


def rotated(binaries, labels, round_number):
    """(binary, label) pairs in this round's order: each binary takes each place in turn (with two,
    the order reverses every round; a reversed order alone kept the middle one of three in the
    middle every round)."""
    order = list(zip(binaries, labels))
    shift = round_number % len(order)
    return order[shift:] + order[:shift]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", help="idconnect binaries to compare, the baseline first")
    parser.add_argument("--loads", default="login1,login16,exchange,refresh",
                        help="comma-separated: scenario name (floor for the static route) + connections (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=8, help="length of each load")
    parser.add_argument("--signing", choices=["RS256", "ES256"], help="the brokers' signing algorithm (default: RS256)")
    options, loads, labels = parse_comparison(parser)
    runs = {label: [] for label in labels}
    for round_number in range(options.rounds):
        print(f"-- round {round_number + 1} of {options.rounds}", flush=True)
        for binary, label in rotated(options.binaries, labels, round_number):
            runs[label].append(measure(binary, loads, options.seconds, label, options.signing))
    print("\n== medians over", options.rounds, "rounds")
    width = max(len(label) for label in labels)
    for text in loads:
        for label in labels:
            rates = [run[text].requests_per_second for run in runs[label]]
            p50s = [run[text].p50_ms for run in runs[label]]
            cpus = [run[text].cpu_us.get("broker", 0) for run in runs[label]]
            line = (f"{text:>12} {label:<{width}}: {statistics.median(rates):9,.0f}/s  p50 {statistics.median(p50s):6.2f} ms  "
                    f"CPU {statistics.median(cpus):7.0f} µs")
            if len(labels) == 2 and label == labels[1]:
                wins = sum(after[text].requests_per_second > before[text].requests_per_second
                           for before, after in zip(runs[labels[0]], runs[labels[1]]))
                line += f"  (faster in {wins} of {options.rounds} rounds)"
            print(line)


if __name__ == "__main__":
    main()
