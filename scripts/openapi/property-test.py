#!/usr/bin/env python3
"""Property-based tests of the HTTP API from docs/openapi.yaml with schemathesis (docs/fuzzing.md).

    python3 scripts/openapi/property-test.py BIN [--examples N] [--seed S]

Starts BIN (`idconnect`) on a copy of the shipped console-config with SQLite in a temporary
directory and the pre-authentication rate limits raised (so the run tests the API, not the
throttle), then runs schemathesis over every operation of the document, once without credentials
and once with the demo app's Basic credentials. Each operation gets up to N generated requests per
phase (examples, coverage, fuzzing; default 100), then the stateful phase chains operations along
the links schemathesis infers from the document (a document whose links cannot be built —
"Invalid OpenAPI Links Definition" — fails the run). Checks: no 5xx, status codes, content types,
headers and JSON bodies as documented. The versioned copies (/v1, /v2, /v3) share the bare paths'
definitions and code, so only the bare paths are driven; scripts/openapi/check.py checks that the
copies are identical and served.

Afterwards the broker must still answer /healthz and its log must not show a crash. Exits non-zero
on any failure. Needs python3 with venv and pip: on first use it creates .venv-schemathesis at the
repository root and installs schemathesis there.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".venv-schemathesis"
REQUIREMENT = "schemathesis>=4.3,<5"
SPEC = REPO / "docs" / "openapi.yaml"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"
DEMO_APP = "kid_demo:demo-app-secret-change-me"


def schemathesis() -> Path:
    """The schemathesis CLI inside .venv-schemathesis, installed on first use."""
    binary = VENV / "bin" / "schemathesis"
    if not binary.exists():
        print(f"installing {REQUIREMENT} into {VENV.relative_to(REPO)} …", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
        subprocess.check_call([str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", REQUIREMENT])
    return binary


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_ready(base: str, server: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the broker exited with {server.returncode} before it was ready")
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the broker did not become ready")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--examples", type=int, default=100, help="generated requests per operation and phase (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="schemathesis seed (default: random, printed)")
    args = parser.parse_args()
    cli = schemathesis()
    seed = args.seed if args.seed is not None else random.randrange(1, 2**31)

    work = Path(tempfile.mkdtemp(prefix="idc-schemathesis-"))
    shutil.copytree(REPO / "console-config", work / "config")
    (work / "config" / "limits.yaml").write_text(
        "server:\n  rateLimits: { authorizationsPerMinute: 100000000, registrationsPerMinute: 100000000,"
        " registrationsPerTokenPerMinute: 100000000 }\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(work / "serve.log", "w")
    server = subprocess.Popen([args.binary, "serve", "--config", str(work / "config"), "--port", str(port), "--issuer", base,
                               "--storage", f"sqlite:{work / 'broker.sqlite'}"], stdout=log, stderr=subprocess.STDOUT)
    failed = False
    try:
        wait_ready(base, server)
        # One worker: with two, hypothesis describes strategies (ast.parse) from two threads at once,
        # and CPython 3.11 before 3.11.8 keeps ast's recursion depth in shared state (gh-106905), so a
        # run could end in "AST constructor recursion depth mismatch", a tool error and no finding.
        common = [str(cli), "run", str(SPEC), "--url", base, "--checks", CHECKS, "--max-examples", str(args.examples),
                  "--phases", "examples,coverage,fuzzing,stateful", "--exclude-path-regex", "^/v[123]/", "--seed", str(seed),
                  "--request-timeout", "15", "--workers", "1", "--no-color", "--suppress-health-check", "all",
                  "--generation-database", "none", "--warnings", "off"]
        for label, extra in [("without credentials", []), ("with the demo app's credentials", ["--auth", DEMO_APP])]:
            print(f"== schemathesis {label} (seed {seed}, {args.examples} examples per operation and phase)", flush=True)
            report = work / f"report-{len(extra)}.xml"
            result = subprocess.run(common + extra + ["--report", "junit", "--report-junit-path", str(report)])
            if result.returncode != 0:
                failed = True
            if server.poll() is not None:
                print(f"the broker died during the run (exit {server.returncode})", file=sys.stderr)
                failed = True
                break
        if server.poll() is None:
            with urllib.request.urlopen(base + "/healthz", timeout=5) as answer:
                if answer.status != 200:
                    print("the broker no longer answers /healthz", file=sys.stderr)
                    failed = True
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        log.close()
    text = (work / "serve.log").read_text(errors="replace")
    for marker in ("Fatal error", "panic", "Segmentation fault", "Illegal instruction"):
        if marker in text:
            print(f"the broker log shows '{marker}'", file=sys.stderr)
            failed = True
    if failed:
        print(f"property tests FAILED; broker log and reports kept in {work}", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("property tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
