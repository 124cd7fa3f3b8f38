"""A large body through the data-link gateway (docs/benchmarks.md, "Gateway streaming"): a backend
in this process serves N MB, fetched once directly and once through the gateway while the broker's
resident memory is sampled. The gateway streams both ways, so its memory must stay flat however
large the body is (the rule of docs/protocol.md, "Data-link gateway"). Standard library only."""

import http.client
import http.server
import threading
import time

CHUNK = b"\0" * (256 << 10)


class _Backend(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    size = 0

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(self.size))
        self.end_headers()
        left = self.size
        while left > 0:
            piece = CHUNK[:min(left, len(CHUNK))]
            self.wfile.write(piece)
            left -= len(piece)

    def do_POST(self):  # noqa: N802
        left = int(self.headers.get("Content-Length", "0"))
        while left > 0:
            piece = self.rfile.read(min(left, 1 << 20))
            if not piece:
                break
            left -= len(piece)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *arguments):
        pass


def start_backend(megabytes):
    """A backend on a free loopback port answering every GET with `megabytes` MiB; returns (server, port)."""
    handler = type("Backend", (_Backend,), {"size": megabytes << 20})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _download(port, path, headers):
    """Reads the whole answer in 1 MiB pieces without keeping it; returns (status, bytes, seconds)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    total = 0
    while True:
        piece = response.read(1 << 20)
        if not piece:
            break
        total += len(piece)
    connection.close()
    return response.status, total, time.monotonic() - started


def _upload(port, path, headers, megabytes):
    """Sends `megabytes` MiB in 1 MiB pieces; returns (status, seconds)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.putrequest("POST", path)
    for name, value in dict(headers, **{"Content-Length": str(megabytes << 20),
                                        "Content-Type": "application/octet-stream"}).items():
        connection.putheader(name, value)
    connection.endheaders()
    piece = CHUNK * 4
    for _ in range(megabytes):
        connection.send(piece)
    status = connection.getresponse().status
    connection.close()
    return status, time.monotonic() - started


class _PeakRSS:
    """The broker's highest resident memory while the block runs (sampled every 20 ms)."""

    def __init__(self, pid):
        self.pid = pid
        self.before = self.highest = rss_mb(pid)
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample)

    def _sample(self):
        while not self.done.is_set():
            self.highest = max(self.highest, rss_mb(self.pid))
            time.sleep(0.02)

    def __enter__(self):
        self.sampler.start()
        return self

    def __exit__(self, *exception):
        self.done.set()
        self.sampler.join()


def measure(broker_port, broker_pid, backend_port, link_name, token, megabytes, upload_megabytes):
    """`megabytes` MiB fetched directly and through the gateway, and `upload_megabytes` MiB sent
    through it (the gateway refuses request bodies over 32 MiB), with the broker's RSS before and
    at its highest while streaming."""
    status, size, direct_seconds = _download(backend_port, "/big", {})
    if status != 200 or size != megabytes << 20:
        raise SystemExit(f"the streaming backend answered {status} with {size} bytes")
    bearer = {"Authorization": "Bearer " + token}
    with _PeakRSS(broker_pid) as download:
        status, size, gateway_seconds = _download(broker_port, f"/datalink/{link_name}/big", bearer)
    if status != 200 or size != megabytes << 20:
        raise SystemExit(f"the gateway answered {status} with {size} of {megabytes << 20} bytes")
    with _PeakRSS(broker_pid) as upload:
        status, upload_seconds = _upload(broker_port, f"/datalink/{link_name}/sink", bearer, upload_megabytes)
    if status != 204:
        raise SystemExit(f"an upload of {upload_megabytes} MiB through the gateway answered {status}")
    return {"megabytes": megabytes, "direct_mb_per_s": round(megabytes / direct_seconds, 1),
            "gateway_mb_per_s": round(megabytes / gateway_seconds, 1), "rss_before_mb": round(download.before, 1),
            "rss_highest_mb": round(download.highest, 1), "upload_megabytes": upload_megabytes,
            "upload_mb_per_s": round(upload_megabytes / upload_seconds, 1), "upload_rss_highest_mb": round(upload.highest, 1)}
