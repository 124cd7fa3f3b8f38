"""Runs wrk against one scenario and reads its numbers back (req/s, p50, p99, errors)."""

import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


class Result:
    def __init__(self, name, requests_per_second, p50_ms, p99_ms, requests, errors, note=""):
        self.name = name
        self.requests_per_second = requests_per_second
        self.p50_ms = p50_ms
        self.p99_ms = p99_ms
        self.requests = requests
        self.errors = errors
        self.note = note
        # CPU time (user + system) each watched process spent per request during the run, in
        # microseconds: steadier than req/s on a shared machine, where the CPU share drifts.
        self.cpu_us = {}
        # How many times per request each watched process's threads (those alive through the
        # run) went to sleep (voluntary context switches: waiting for work, a lock or I/O). Each
        # is a wake-up that costs CPU later. A process kept busy sleeps far less than once per
        # request; one that waits for every packet, more.
        self.sleeps = {}


# label -> pid of the processes whose CPU time every run_wrk measures (watch()).
_watched = {}


def watched(label):
    """The pid watched under `label`, or None."""
    return _watched.get(label)


def watch(label, pid):
    """Measure the CPU time `pid` spends per request in every later run (None stops)."""
    if pid is None:
        _watched.pop(label, None)
    else:
        _watched[label] = pid


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (its threads included); None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid):
    """{thread id: (voluntary, involuntary) context switches so far} for a process's live threads;
    None once the process is gone. Compare two readings with ``switches_between``."""
    counts = {}
    try:
        names = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for name in names:
        voluntary = involuntary = 0
        try:
            with open(f"/proc/{pid}/task/{name}/status") as handle:
                for line in handle:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary = int(line.split(":")[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary = int(line.split(":")[1])
        except OSError:  # the thread ended meanwhile
            continue
        counts[name] = (voluntary, involuntary)
    return counts


def switches_between(before, after):
    """(voluntary, involuntary) context switches between two ``context_switches`` readings, of
    the threads alive at both: a thread that ended takes its count with it, and one that began
    meanwhile (libdispatch's, a blocking pool's) is left out, so the event loops' count is whole
    and short-lived workers' is not. (0, 0) when either reading is missing (the process ended)."""
    voluntary = involuntary = 0
    if before is None or after is None:
        return voluntary, involuntary
    for thread, (first_voluntary, first_involuntary) in before.items():
        if thread in after:
            voluntary += after[thread][0] - first_voluntary
            involuntary += after[thread][1] - first_involuntary
    return voluntary, involuntary


def run_wrk(name, port, duration, connections, threads, method="GET", path="/", body="", headers=None,
            pool=None, cycle=False, note=""):
    """Loads http://127.0.0.1:port with a fixed request, with each value of `pool` once, or (with
    `cycle`) with the values of `pool` round and round for the whole duration."""
    env = dict(os.environ)
    env.update({
        "BENCH_METHOD": method, "BENCH_PATH": path, "BENCH_BODY": body, "BENCH_THREADS": str(threads),
        "BENCH_HEADERS": "|".join(f"{key}: {value}" for key, value in (headers or {}).items()),
    })
    script = os.path.join(HERE, "fixed.lua")
    clocks = None
    if pool is not None:
        directory = os.environ.get("BENCH_TMP", "/tmp")
        pool_path = os.path.join(directory, f"pool-{name}.txt")
        with open(pool_path, "w") as handle:
            handle.write("\n".join(pool) + "\n")
        clocks = os.path.join(directory, "clock-" + re.sub(r"[^A-Za-z0-9]+", "-", name))
        env["BENCH_POOL"] = pool_path
        if cycle:
            env["BENCH_CYCLE"], clocks = "1", None
        else:
            env["BENCH_CLOCKS"] = clocks
        script = os.path.join(HERE, "pool.lua")
    command = ["wrk", f"-t{threads}", f"-c{max(connections, threads)}", f"-d{duration}s", "--latency",
               "-s", script, f"http://127.0.0.1:{port}{path if pool is None else '/'}"]
    watched = dict(_watched)
    before = {label: cpu_seconds(pid) for label, pid in watched.items()}
    switches_before = {label: context_switches(pid) for label, pid in watched.items()}
    output = subprocess.run(command, env=env, capture_output=True, text=True, timeout=duration + 60).stdout
    after = {label: cpu_seconds(pid) for label, pid in watched.items()}
    switches_after = {label: context_switches(pid) for label, pid in watched.items()}
    result = parse(name, output, note)
    for label in watched:
        if before[label] is not None and after[label] is not None and result.requests:
            result.cpu_us[label] = round((after[label] - before[label]) / result.requests * 1e6, 1)
        if switches_before[label] is not None and switches_after[label] is not None and result.requests:
            voluntary, _ = switches_between(switches_before[label], switches_after[label])
            result.sleeps[label] = round(voluntary / result.requests, 2)
    span = pool_span(clocks, threads) if clocks else None
    if span:
        result.requests_per_second = result.requests / span
    return result


def pool_span(prefix, threads):
    """Seconds from the first thread's start to the last thread's running out of pool values, or
    None when a thread did not run out within the duration (then wrk's own rate is right)."""
    starts, ends = [], []
    for thread in range(1, threads + 1):
        for kind, times in (("start", starts), ("end", ends)):
            path = f"{prefix}-{kind}-{thread}"
            if not os.path.exists(path):
                return None
            with open(path) as handle:
                times.append(float(handle.read().strip()))
            os.remove(path)
    span = max(ends) - min(starts)
    return span if span > 0 else None


def parse(name, output, note):
    rate = float(_find(r"Requests/sec:\s+([\d.]+)", output, "0"))
    requests = int(_find(r"(\d+) requests in", output, "0"))
    p50 = _latency_ms(output, "50%")
    p99 = _latency_ms(output, "99%")
    errors = 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_2xx:  # wrk counts statuses >= 400 here; a 302 is a success for the sign-in rows
        errors += int(non_2xx.group(1))
    refused = re.search(r"Error redirects: (\d+)", output)
    if refused:  # sign-ins answered with a redirect carrying error= (pool.lua)
        errors += int(refused.group(1))
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        errors += sum(int(value) for value in socket_errors.groups())
    if requests == 0:
        raise SystemExit(f"{name}: wrk made no requests:\n{output}")
    return Result(name, rate, p50, p99, requests, errors, note)


def _find(pattern, text, default):
    match = re.search(pattern, text)
    return match.group(1) if match else default


def _latency_ms(output, percentile):
    match = re.search(rf"^\s*{re.escape(percentile)}\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    if not match:
        return 0.0
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
