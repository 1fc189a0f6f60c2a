#!/usr/bin/env python3
"""Measures `medrender serve` as its clients see it, on loopback only, and writes the figures into
BENCHMARKS.md under "## Service" (replacing that section, or adding it).

- a cached 15-minute OGG: time to first byte of a repeat (median of 200 requests, one at a time),
  and wrk, 8 connections for 20 s, each request a 1 MiB range of it (goals: first byte <= 5 ms,
  >= 500 requests/s);
- uncached 2-minute renders of PRESETS, two clients at a time against a server with two render
  places, against `medrender build -j 2` of the same presets in the same run (goal: within 10 %);
- the server's peak RSS (VmHWM) with 8 streams at once (8 different 5-minute renders, uncached).

The machine's load average is noted with the figures: on a shared machine they move with it.
"""
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.path.join(ROOT, ".build", "release", "medrender")
FIFTEEN = "/render?preset=box-breath&minutes=15&format=ogg"
PRESETS = ["box-breath", "coherent", "calming", "sleep", "triangle", "relax-4-6"]


def start_server(cache, extra=()):
    proc = subprocess.Popen([MEDRENDER, "serve", "--host", "127.0.0.1", "--port", "0", "--cache-dir", cache, *extra], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stderr.readline()
        m = re.search(r"on http://127\.0\.0\.1:(\d+)", line)
        if m:
            # Keep draining the log so the server never blocks on a full pipe.
            subprocess.Popen(["cat"], stdin=proc.stderr, stdout=subprocess.DEVNULL)
            return proc, int(m.group(1))
    proc.kill()
    raise SystemExit("the server did not start")


def timed_get(port, path, headers=""):
    """Seconds to the first byte of the body and to its end, and the body's length."""
    start = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{headers}\r\n".encode())
    data = b""
    first = None
    head_end = -1
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
        if head_end < 0:
            head_end = data.find(b"\r\n\r\n")
        if first is None and head_end >= 0 and len(data) > head_end + 4:
            first = time.perf_counter() - start
    s.close()
    if not data.startswith(b"HTTP/1.1 20"):
        raise SystemExit(f"{path}: {data[:200]!r}")
    return first, time.perf_counter() - start, len(data) - head_end - 4


def peak_rss(pid):
    return int(re.search(r"VmHWM:\s+(\d+) kB", open(f"/proc/{pid}/status").read()).group(1)) / 1024


def cached(scratch):
    proc, port = start_server(os.path.join(scratch, "cache-15"))
    try:
        timed_get(port, FIFTEEN)  # renders it into the cache
        firsts = [timed_get(port, FIFTEEN)[0] for _ in range(200)]
        wrk = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", "20s", "--timeout", "10s", "--latency",
                              "-H", "Range: bytes=1048576-2097151", f"http://127.0.0.1:{port}{FIFTEEN}"],
                             capture_output=True, text=True).stdout
    finally:
        proc.terminate()
        proc.wait()
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", wrk)
    if bad or "Requests/sec" not in wrk:
        raise SystemExit("the load was not all answered with 206:\n" + wrk)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))

    def latency(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", wrk)
        return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]

    return statistics.median(firsts) * 1000, rps, latency(50), latency(99)


def uncached_against_build(scratch):
    """Wall seconds for the presets' 2-minute renders: the server (two clients, two places), then the build."""
    proc, port = start_server(os.path.join(scratch, "cache-2"), ["--max-renders", "2"])
    queue = list(PRESETS)
    lock = threading.Lock()

    def client():
        while True:
            with lock:
                if not queue:
                    return
                name = queue.pop(0)
            timed_get(port, f"/render?preset={name}&minutes=2&format=ogg")

    try:
        start = time.perf_counter()
        clients = [threading.Thread(target=client) for _ in range(2)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        served = time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait()
    out = os.path.join(scratch, "build")
    start = time.perf_counter()
    result = subprocess.run([MEDRENDER, "build", "-o", out, "-j", "2", "--minutes", "2", *PRESETS], cwd=ROOT,
                            capture_output=True, text=True)
    built = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit("medrender build failed: " + result.stderr)
    return served, built


def eight_streams(scratch):
    proc, port = start_server(os.path.join(scratch, "cache-8"))
    try:
        queries = [f"/render?preset={PRESETS[i % len(PRESETS)]}&minutes=5&seed={i}&format=ogg" for i in range(8)]
        threads = [threading.Thread(target=timed_get, args=(port, q)) for q in queries]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return peak_rss(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def main():
    if not os.path.exists(MEDRENDER):
        raise SystemExit("build the release first: swift build -c release")
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (Debian package wrk)")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="medrender-bench-serve-") as scratch:
        first_ms, rps, p50, p99 = cached(scratch)
        served, built = uncached_against_build(scratch)
        rss = eight_streams(scratch)
    load_after = os.getloadavg()[0]
    cores = os.cpu_count()
    lines = ["## Service", "",
             f"Measured by `make bench` (`python3 scripts/bench-serve.py`): `medrender serve` (release build) on 127.0.0.1, "
             f"clients on loopback, {cores} cores, load average {load_before:.1f} before and {load_after:.1f} after "
             "(a shared machine: the figures move with its load).", "",
             "| measure | value | goal |", "| --- | --- | --- |",
             f"| cached 15-min OGG (box-breath, 48 kHz): time to first byte, median of 200 | {first_ms:.2f} ms | <= 5 ms |",
             f"| cached 15-min OGG: 1 MiB ranges, wrk 8 connections 20 s | {rps:.0f} requests/s (p50 {p50:.1f} ms, p99 {p99:.1f} ms) | >= 500 |",
             f"| uncached 2-min OGG of {len(PRESETS)} presets, 2 clients, 2 render places | {served:.2f} s | |",
             f"| `medrender build -j 2` of the same | {built:.2f} s | |",
             f"| served / built | {served / built:.3f} | <= 1.10 |",
             f"| server peak RSS, 8 streams at once (8 different 5-min renders) | {rss:.1f} MiB | |", "",
             "The build does more per session than a stream: it writes the cue sheets (JSON, VTT), a preview page per session, an index and the manifest, and decodes "
             "each lossy file it wrote to check its loudness and true peak (pass 3, written again when off), which a "
             "stream cannot be; so the served renders take less time than the build's, not more (these parts were not "
             "timed apart). Time to first byte "
             "and requests per second are of the whole process on a loaded 2-core machine (load average above); "
             "each request is also logged as a JSON line.", ""]
    section = "\n".join(lines)
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n"
    text = re.sub(r"\n## Service\n.*?(?=\n## |\Z)", "", text, flags=re.S).rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
