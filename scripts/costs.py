#!/usr/bin/env python3
"""What one request costs each build, counted rather than timed (docs/benchmarks.md, "Counting costs").

    scripts/costs.py BEFORE AFTER [MORE ...] [--loads exchange,refresh] [--rounds 2] [--seconds 8]

Runs each load (a scripts/profile.py scenario name, optionally followed by its number of
connections, as in scripts/ab.py) against each `idconnect` binary in turn, on fresh data, and
reads the broker's /proc counters before and after: per request, the CPU its event loops spent,
the CPU the rest of the process spent (GRDB's writer queue with the WAL checkpoints, the blocking
pools), the bytes it handed to write calls (files and sockets: `wchar`) and those calls, the
bytes it sent towards the disk (`write_bytes`), how often its threads that live through the load
went to sleep (voluntary context switches: waiting for work, a lock or I/O; each is a wake-up to
pay for later) and were preempted; and the size of the WAL at the end. Checkpoints come in
steps: up to one threshold's worth of WAL may still wait for its checkpoint when a load
ends, so compare loads long enough to cross the threshold many times.

Requests per second on two shared cores move 10–30% between minutes. The bytes and writes per
request move a few percent, and the CPU of the threads off the event loops little more, so a
change that removes such work shows here when scripts/ab.py cannot tell it from noise. The
event loops' CPU per request still moves with the machine (10–40% on sign-ins). None of it is a
verdict on speed: a build may do less work and still wait longer.
"""
import argparse
import glob
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load  # noqa: E402
from ab import parse_comparison, parse_load, rotated  # noqa: E402
from profile import scenario, start_broker  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
COLUMNS = ("rate", "loops_us", "other_us", "written", "writes", "disk", "sleeps", "preempted")


def cpu_ticks(stat_path):
    """utime + stime of a /proc stat file (fields 14 and 15; the command may contain spaces)."""
    with open(stat_path) as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def counters(pid):
    """The process's write counters, its CPU ticks, and those of its event loops.

    The loops live as long as the broker; other threads (libdispatch's, which run GRDB's writer
    queue) come and go, so their share is the process's total minus the loops', which counts the
    threads that ended meanwhile too."""
    values = {}
    with open(f"/proc/{pid}/io") as file:
        for line in file:
            key, value = line.split(":")
            values[key] = int(value)
    values["total"] = cpu_ticks(f"/proc/{pid}/stat")
    values["switches"] = load.context_switches(pid)
    values["loops"] = 0
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(task + "/comm") as file:
                if not file.read().startswith("NIO-"):
                    continue
            values["loops"] += cpu_ticks(task + "/stat")
        except OSError:  # the thread ended meanwhile
            continue
    return values


def measure(binary, text, seconds):
    """One load against a fresh `binary`: {column: value per request} and the WAL's size."""
    workdir = tempfile.mkdtemp(prefix="idconnect-costs-")
    os.environ["BENCH_TMP"] = workdir
    processes = []
    try:
        port = start_broker(workdir, binary, processes)
        pid = processes[-1].pid
        name, connections = parse_load(text)
        arguments = scenario(name, port, 2500 * seconds)
        before = counters(pid)
        result = load.run_wrk(text, port=port, duration=seconds, connections=connections,
                              threads=min(2, connections), **arguments)
        after = counters(pid)
        # A load whose pool of codes or tokens runs out ends early: count what wrk made.
        requests = result.requests
        if result.errors:
            print(f"{text}: {result.errors} errors of {requests} requests", flush=True)
        sleeps, preempted = load.switches_between(before.pop("switches"), after.pop("switches"))
        delta = {key: after[key] - before[key] for key in before}
        delta["sleeps"], delta["preempted"] = sleeps, preempted
        wal = sum(os.path.getsize(path) for path in glob.glob(os.path.join(workdir, "**", "*-wal"), recursive=True))
        return {"rate": result.requests_per_second, "loops_us": delta["loops"] * 1e6 / TICKS / requests,
                "other_us": (delta["total"] - delta["loops"]) * 1e6 / TICKS / requests,
                "written": delta["wchar"] / requests, "writes": delta["syscw"] / requests,
                "disk": delta["write_bytes"] / requests, "sleeps": delta["sleeps"] / requests,
                "preempted": delta["preempted"] / requests}, wal
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
        shutil.rmtree(workdir, ignore_errors=True)


def line(label, text, row, wal):
    return (f"{text:>12} {label}: {row['rate']:8,.0f}/s  CPU loops {row['loops_us']:5.0f} µs  other {row['other_us']:4.0f} µs  "
            f"written {row['written']:7,.0f} B in {row['writes']:4.1f} writes, to disk {row['disk']:7,.0f} B  "
            f"WAL {wal / 1e6:5.1f} MB  sleeps {row['sleeps']:4.2f} preempted {row['preempted']:4.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", help="idconnect binaries to compare, the baseline first")
    parser.add_argument("--loads", default="exchange,refresh", help="comma-separated, as scripts/ab.py takes them")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=8)
    options, loads, labels = parse_comparison(parser)
    width = max(len(label) for label in labels)
    runs = {(label, text): [] for label in labels for text in loads}
    for round_number in range(options.rounds):
        print(f"-- round {round_number + 1} of {options.rounds}", flush=True)
        for binary, label in rotated(options.binaries, labels, round_number):
            for text in loads:
                row, wal = measure(binary, text, options.seconds)
                runs[(label, text)].append((row, wal))
                print(line(f"{label:<{width}}", text, row, wal), flush=True)
    print(f"\n== medians over {options.rounds} rounds")
    for text in loads:
        for label in labels:
            rows = runs[(label, text)]
            median = {column: statistics.median(row[column] for row, _ in rows) for column in COLUMNS}
            print(line(f"{label:<{width}}", text, median, statistics.median(wal for _, wal in rows)))


if __name__ == "__main__":
    main()
