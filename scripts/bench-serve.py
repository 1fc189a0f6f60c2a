#!/usr/bin/env python3
"""Measures `medrender serve` as its clients see it, on loopback only, and writes the figures into
BENCHMARKS.md under "## Service" (replacing that section, or adding it).

- time to first byte and to the first 64 KiB (the first audio pages) of a 15-minute OGG, for a
  first request (pass 1 measures the mix) and a repeat (the measured loudness is cached), from a
  client on loopback; medians of RUNS fresh servers;
- wrk: 8 connections for 30 s on a 2-minute session, sessions per second and p50/p99 latency;
- the server's peak RSS (VmHWM) after that load.
"""
import os
import re
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.path.join(ROOT, ".build", "release", "medrender")
RUNS = 3
FIFTEEN = "/render?preset=box-breath&minutes=15&format=ogg"
ONE = "/render?preset=coherent&minutes=2&rate=16000&format=ogg"


def start_server(extra=()):
    proc = subprocess.Popen([MEDRENDER, "serve", "--host", "127.0.0.1", "--port", "0", *extra], cwd=ROOT,
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


def timed_get(port, path):
    """Seconds to the first byte of the body, to its first 64 KiB, and to its end."""
    start = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    data = b""
    first = first64 = None
    head_end = -1
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        if head_end < 0:
            head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            body = len(data) - head_end - 4
            if first is None and body > 0:
                first = time.perf_counter() - start
            if first64 is None and body >= 65536:
                first64 = time.perf_counter() - start
    s.close()
    return first, first64, time.perf_counter() - start


def main():
    if not os.path.exists(MEDRENDER):
        raise SystemExit("build the release first: swift build -c release")
    cold, warm = [], []
    for _ in range(RUNS):
        proc, port = start_server()
        try:
            cold.append(timed_get(port, FIFTEEN))
            warm.append(timed_get(port, FIFTEEN))
        finally:
            proc.terminate()
            proc.wait()

    proc, port = start_server()
    try:
        wrk = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", "30s", "--timeout", "60s", "--latency",
                              f"http://127.0.0.1:{port}{ONE}"], capture_output=True, text=True).stdout
        status = open(f"/proc/{proc.pid}/status").read()
        rss = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024
    finally:
        proc.terminate()
        proc.wait()
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", wrk)
    if bad or "Requests/sec" not in wrk:
        raise SystemExit("the load was not all answered with 200:\n" + wrk)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))

    def latency(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", wrk)
        value, unit = float(m.group(1)), m.group(2)
        return value * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    def med(values, i):
        return statistics.median(v[i] for v in values)

    lines = ["## Service", "",
             f"Measured by `make bench` (`python3 scripts/bench-serve.py`): `medrender serve` on 127.0.0.1, a client on "
             f"loopback, release build. Time to first byte is the medians of {RUNS} fresh servers; the first request "
             "measures the mix (pass 1), a repeat takes the measure from the cache.", "",
             "| 15-min OGG (box-breath) | first byte (s) | first 64 KiB of audio (s) | whole file (s) |",
             "| --- | --- | --- | --- |",
             f"| first request | {med(cold, 0):.3f} | {med(cold, 1):.3f} | {med(cold, 2):.2f} |",
             f"| repeat | {med(warm, 0):.3f} | {med(warm, 1):.3f} | {med(warm, 2):.2f} |", "",
             "| wrk, 8 connections, 30 s, 2-min coherent OGG at 16 kHz | value |", "| --- | --- |",
             f"| sessions per second | {rps:.2f} |",
             f"| latency p50 | {latency(50):.0f} ms |",
             f"| latency p99 | {latency(99):.0f} ms |",
             f"| server peak RSS after the load | {rss:.1f} MiB |", ""]
    section = "\n".join(lines)
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n"
    text = re.sub(r"\n## Service\n.*", "", text, flags=re.S).rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
