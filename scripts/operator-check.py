#!/usr/bin/env python3
"""An operator's first hour with the real `idconnect` binary (docs/operations.md).

Each check starts `idconnect serve` on a copy of the shipped console-config in a scratch
directory and fails loudly when the broker does not behave as documented:

- `--version` and the start-up summary name the version and the build's commit;
- listening on 0.0.0.0 without an issuer is refused (nothing created); `--dev` allows it with
  the issuer http://localhost:<port>;
- a port in use is a one-line error before anything is created;
- a second `serve` on the same SQLite database is refused while the first runs;
- `server.adminPort`: /metrics only on the admin listener, every family with HELP, the
  process's series and the build;
- SIGTERM with a QR page's long poll open: the poll answers, the broker is gone within 5 s and
  logs "stopped"; request log lines have numeric `status`/`ms` and no one-time ids;
- `idconnect healthcheck` (the container's HEALTHCHECK) exits 0 / 1;
- `idconnect clients list` lists the configured clients;
- `idconnect hash-password` on a terminal asks twice and echoes nothing.

Usage: scripts/operator-check.py PATH/TO/idconnect
Only the standard library: it runs with the system python3.
"""
import http.cookiejar
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REDIRECT = "http://localhost:3000/callback"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def fail(message):
    print(f"operator-check: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(url, opener=None, timeout=10):
    """(status, body text) of a GET; HTTP errors are answers too."""
    opener = opener or urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class Broker:
    """`idconnect serve` in its own scratch directory (config copy, data, logs)."""

    def __init__(self, binary, *args, port=None, work=None):
        self.binary = binary
        self.work = work or tempfile.mkdtemp(prefix="idc-operator-")
        config = os.path.join(self.work, "console-config")
        if not os.path.isdir(config):
            shutil.copytree(os.path.join(ROOT, "console-config"), config)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.out = open(os.path.join(self.work, "serve.out"), "w+")
        self.log = open(os.path.join(self.work, "serve.log"), "w+")
        self.process = subprocess.Popen([binary, "serve", "--port", str(self.port), *args], cwd=self.work,
                                        stdout=self.out, stderr=self.log)

    def wait_ready(self):
        for _ in range(300):
            if self.process.poll() is not None:
                fail(f"serve exited with {self.process.returncode}: {self.log_text()[-2000:]}")
            try:
                if get(self.base + "/healthz", timeout=1)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        fail("serve did not answer /healthz within 30 s")

    def log_text(self):
        self.log.flush()
        with open(self.log.name) as file:
            return file.read()

    def out_text(self):
        self.out.flush()
        with open(self.out.name) as file:
            return file.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def refused(binary, *args, cwd):
    """Runs a `serve` that must refuse to start: (exit code, stderr)."""
    result = subprocess.run([binary, "serve", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    return result.returncode, result.stderr.strip()


def check_version(binary):
    text = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if not re.fullmatch(r"idconnect \d+\.\d+\.\d+ \(commit [0-9a-f]{7,}(\+changes)?\)|idconnect \d+\.\d+\.\d+ \(commit unknown\)", text):
        fail(f"--version printed {text!r}")
    return text.removeprefix("idconnect ")


def check_refusals(binary):
    work = tempfile.mkdtemp(prefix="idc-operator-")
    shutil.copytree(os.path.join(ROOT, "console-config"), os.path.join(work, "console-config"))
    code, error = refused(binary, "--host", "0.0.0.0", "--port", str(free_port()), cwd=work)
    if code == 0 or "needs an explicit issuer" not in error or "--issuer" not in error or "\n" in error:
        fail(f"0.0.0.0 without an issuer: exit {code}, {error!r}")
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    taken = holder.getsockname()[1]
    code, error = refused(binary, "--port", str(taken), cwd=work)
    holder.close()
    if code == 0 or error != f"idconnect: cannot start: 127.0.0.1:{taken} is already in use (another idconnect serve?); " \
                             "stop that process or choose another port with --port":
        fail(f"port in use: exit {code}, {error!r}")
    if os.path.exists(os.path.join(work, "data")):
        fail("a refused start created the data directory")
    shutil.rmtree(work)
    print("operator-check: refusals OK (no issuer on 0.0.0.0, port in use; nothing created)")


def check_development_mode(binary):
    broker = Broker(binary, "--dev", "--host", "0.0.0.0")
    try:
        broker.wait_ready()
        status, body = get(broker.base + "/.well-known/openid-configuration")
        if status != 200 or json.loads(body)["issuer"] != f"http://localhost:{broker.port}":
            fail(f"--dev on 0.0.0.0: issuer {body[:200]}")
    finally:
        broker.stop()
    print("operator-check: --dev OK (0.0.0.0 with the issuer http://localhost:<port>)")


def check_second_serve_and_admin(binary):
    admin_port = free_port()
    # server.yaml of the shipped config says `server: {}`; the copy gets the admin port there.
    work = tempfile.mkdtemp(prefix="idc-operator-")
    config = os.path.join(work, "console-config")
    shutil.copytree(os.path.join(ROOT, "console-config"), config)
    with open(os.path.join(config, "server.yaml")) as file:
        text = file.read()
    with open(os.path.join(config, "server.yaml"), "w") as file:
        file.write(text.replace("server: {}", f"server:\n  adminPort: {admin_port}"))
    broker = Broker(binary, work=work).wait_ready()
    try:
        # The shipped config (no admin port, which is taken too) on the first one's database.
        code, error = refused(binary, "--port", str(free_port()), "--storage", "sqlite:./data/idconnect.sqlite",
                              "--config", os.path.join(ROOT, "console-config"), cwd=work)
        if code == 0 or "another idconnect serve is using the SQLite database" not in error:
            fail(f"a second serve on the same SQLite database: exit {code}, {error!r}")
        if get(broker.base + "/healthz")[0] != 200:
            fail("the first serve stopped answering after the second was refused")
        if get(broker.base + "/metrics")[0] != 404:
            fail("/metrics is still served on the main listener with server.adminPort")
        status, text = get(f"http://127.0.0.1:{admin_port}/metrics")
        if status != 200:
            fail(f"admin listener /metrics answered {status}")
        typed = set(re.findall(r"^# TYPE (\S+)", text, re.M))
        helped = set(re.findall(r"^# HELP (\S+)", text, re.M))
        if not typed or typed - helped:
            fail(f"metric families without HELP: {sorted(typed - helped)}")
        for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_threads",
                     "process_start_time_seconds", "idconnect_build_info"]:
            if not re.search(rf"^{name}(\{{.*\}})? \S+$", text, re.M):
                fail(f"/metrics has no {name}")
        # Without an LDAP or AD auth service the directory pool's 64 threads are never started.
        threads = float(re.search(r"^process_threads (\S+)$", text, re.M).group(1))
        if threads > 24:
            fail(f"{threads:.0f} threads in a broker on the demo configuration (at most 24 expected)")
        if get(f"http://127.0.0.1:{admin_port}/healthz")[0] != 200:
            fail("admin listener /healthz")
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{admin_port}"], capture_output=True, text=True).stdout
        if listening and "127.0.0.1:" not in listening:
            fail(f"the admin listener is not on loopback: {listening}")
        # The container's HEALTHCHECK.
        if subprocess.run([binary, "healthcheck", "--url", broker.base + "/healthz"]).returncode != 0:
            fail("healthcheck against a running broker did not exit 0")
        dead = subprocess.run([binary, "healthcheck", "--url", f"http://127.0.0.1:{free_port()}/healthz"], capture_output=True)
        if dead.returncode != 1:
            fail(f"healthcheck against nothing exited {dead.returncode}")
        # The configured clients, listed while the broker runs.
        listing = subprocess.run([binary, "clients", "list", "--config", config, "--storage", "sqlite:./data/idconnect.sqlite"],
                                 cwd=work, capture_output=True, text=True)
        rows = [line.split("\t") for line in listing.stdout.splitlines()]
        if listing.returncode != 0 or ["kid_demo", "configured"] not in [row[:2] for row in rows] \
                or ["kid_demo.demo-users", "configured"] not in [row[:2] for row in rows]:
            fail(f"clients list: {listing.stdout}{listing.stderr}")
    finally:
        broker.stop()
        shutil.rmtree(work)
    print("operator-check: second serve refused, admin listener, healthcheck, clients list OK")


def check_shutdown_and_logs(binary, version):
    broker = Broker(binary).wait_ready()
    try:
        summary = broker.out_text()
        if f"version  {version}" not in summary:
            fail(f"the start-up summary does not name the version: {summary[:300]}")
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
        _, page = get(f"{broker.base}/oauth/auth?client_id=kid_demo&redirect_uri={REDIRECT}&response_type=code"
                      f"&code_challenge={CHALLENGE}&code_challenge_method=S256", opener)
        start = re.search(r'href="(http://127\.0\.0\.1:\d+/oauth/qr/start/([^"]+))"', page)
        if not start:
            fail("the login page offers no QR sign-in")
        _, qr_page = get(start.group(1), opener)
        code = re.search(r"code=([0-9a-f-]{36})", qr_page)
        if not code:
            fail("the QR page shows no code")
        answer = {}

        def long_poll():
            started = time.monotonic()
            answer["status"] = get(f"{broker.base}/oauth/qr/status?code={code.group(1)}&wait=25", opener, timeout=30)
            answer["seconds"] = time.monotonic() - started

        poller = threading.Thread(target=long_poll)
        poller.start()
        time.sleep(1)
        began = time.monotonic()
        broker.process.send_signal(signal.SIGTERM)
        try:
            broker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            fail("serve did not stop within 10 s of SIGTERM")
        stopped_in = time.monotonic() - began
        poller.join(timeout=10)
        if stopped_in > 5:
            fail(f"serve took {stopped_in:.1f} s to stop with a long poll open (at most 5 s)")
        if answer.get("status", (0, ""))[0] != 200 or answer["seconds"] > 5:
            fail(f"the long poll was not answered at shutdown: {answer}")
        lines = [json.loads(line) for line in broker.log_text().splitlines() if line.startswith("{")]
        if not any(line.get("msg") == "stopped" for line in lines):
            fail("no 'stopped' log line")
        requests = [line for line in lines if line.get("msg") == "request"]
        if not requests or not all(isinstance(line["status"], int) and isinstance(line["ms"], (int, float)) for line in requests):
            fail(f"request log lines without numeric status/ms: {requests[:2]}")
        if start.group(2) in broker.log_text() or not any(line["path"] == "/oauth/qr/start/…" for line in requests):
            fail("the QR page's pending id is in the log")
        print(f"operator-check: SIGTERM with a long poll open: stopped in {stopped_in:.2f} s; log lines OK")
    finally:
        broker.stop()
        shutil.rmtree(broker.work)


def check_hash_password(binary):
    pid, terminal = pty.fork()
    if pid == 0:
        os.execv(binary, [binary, "hash-password", "--iterations", "10000"])
    seen = b""

    def read_until(marker, seconds=20):
        nonlocal seen
        deadline = time.monotonic() + seconds
        while marker not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([terminal], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(terminal, 4096)
                except OSError:
                    break
        return marker in seen

    secret = b"correct horse battery"
    if not read_until(b"Password: "):
        fail(f"hash-password did not ask for the password: {seen!r}")
    os.write(terminal, secret + b"\n")
    if not read_until(b"Repeat password: "):
        fail(f"hash-password did not ask again: {seen!r}")
    os.write(terminal, secret + b"\n")
    read_until(b"$pbkdf2-sha256$")
    read_until(b"\n", 5)
    os.waitpid(pid, 0)
    if secret in seen:
        fail("hash-password echoed the password")
    if b"$pbkdf2-sha256$i=10000$" not in seen:
        fail(f"hash-password printed no hash: {seen!r}")
    print("operator-check: hash-password on a terminal asks twice and echoes nothing")


def check_hash_password_type_ahead(binary):
    """Both lines typed (pasted) before the first prompt appears: nothing may be thrown away. With
    TCSAFLUSH when turning echo off, the typed lines were discarded and the command waited forever."""
    pid, terminal = pty.fork()
    if pid == 0:
        time.sleep(0.5)   # the lines are in the terminal's queue before the command starts
        os.execv(binary, [binary, "hash-password", "--iterations", "10000"])
    os.write(terminal, b"pasted secret\npasted secret\n")
    seen, deadline = b"", time.monotonic() + 20
    while b"$pbkdf2-sha256$i=10000$" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            try:
                seen += os.read(terminal, 4096)
            except OSError:
                break
    if b"$pbkdf2-sha256$i=10000$" not in seen:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        fail(f"hash-password lost a password typed ahead of its prompt: {seen!r}")
    os.waitpid(pid, 0)
    print("operator-check: hash-password keeps a password typed ahead of its prompt")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary = os.path.abspath(sys.argv[1])
    version = check_version(binary)
    print(f"operator-check: idconnect {version}")
    check_refusals(binary)
    check_development_mode(binary)
    check_second_serve_and_admin(binary)
    check_shutdown_and_logs(binary, version)
    check_hash_password(binary)
    check_hash_password_type_ahead(binary)
    print("operator-check: OK")


if __name__ == "__main__":
    main()
