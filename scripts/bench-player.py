#!/usr/bin/env python3
"""A phone player on a slow link, as `medrender serve` sees it: a client that reads a cached
15-minute OGG (box-breath, the server's defaults) at 14 KB/s, about the file's own bit rate, so it
takes about as long to read as to play. The server's send timeout measures progress, not the whole
answer, so the player must receive every byte. Loopback only; one client. Writes the figures into
BENCHMARKS.md under "## A player at 14 KB/s".

    scripts/bench-player.py            # MEDRENDER=path to use another build
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import ROOT, write_section  # noqa: E402

MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
FIFTEEN = "/render?preset=box-breath&minutes=15&format=ogg"
RATE = 14 * 1000          # bytes a second
STEP = 0.25               # seconds between reads


def start_server(cache):
    proc = subprocess.Popen([MEDRENDER, "serve", "--host", "127.0.0.1", "--port", "0", "--cache-dir", cache], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while True:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("the server did not start")
        m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
        if m:
            subprocess.Popen(["cat"], stdin=proc.stderr, stdout=subprocess.DEVNULL)
            return proc, int(m.group(1))


def request(port, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        # A small receive buffer, as a phone's: the server's writes wait on the reader.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {FIFTEEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    return s


def split(data):
    """The status, headers and body of a whole answer; a chunked body is joined."""
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        joined, rest = b"", body
        while True:
            size_line, rest = rest.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            joined, rest = joined + rest[:size], rest[size + 2:]
        body = joined
    return int(lines[0].split()[1]), headers, body


def read_all(s, paced):
    data = b""
    start = time.monotonic()
    while True:
        if paced:
            # Never ahead of RATE: wait until the bytes so far are due, then take one step's worth.
            due = start + len(data) / RATE
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            chunk = s.recv(int(RATE * STEP))
        else:
            chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return data, time.monotonic() - start


def main():
    if not os.path.exists(MEDRENDER):
        raise SystemExit("build the release first: make release")
    with tempfile.TemporaryDirectory(prefix="bench-player") as scratch:
        proc, port = start_server(os.path.join(scratch, "cache"))
        try:
            whole, _ = read_all(request(port), paced=False)  # renders it into the cache
            status, _, reference = split(whole)
            if status != 200:
                raise SystemExit(f"the render answered {status}")
            data, seconds = read_all(request(port, rcvbuf=16 << 10), paced=True)
            status, headers, body = split(data)
        finally:
            proc.terminate()
            proc.wait()
    complete = status == 200 and body == reference
    framing = "chunked" if headers.get("transfer-encoding") == "chunked" else "Content-Length"
    lines = ["## A player at 14 KB/s", "",
             "`scripts/bench-player.py`: a cached 15-minute OGG (box-breath, the server's defaults) read at",
             "14 KB/s through a 16 KiB receive buffer, on loopback; the body compared byte for byte with a fast read.", "",
             "| file | framing | read in | mean rate | received |",
             "|---|---|---|---|---|",
             f"| {len(reference)} bytes | {framing} | {seconds:.0f} s | {len(body) / seconds / 1000:.1f} KB/s | "
             f"{len(body)} bytes, {'all of it, the same bytes' if complete else 'NOT the whole file'} |"]
    write_section("## A player at 14 KB/s", lines)
    if not complete:
        sys.exit(1)


if __name__ == "__main__":
    main()
