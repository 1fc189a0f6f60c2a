#!/usr/bin/env python3
"""Measures what a guided script costs a render, and writes the figures into BENCHMARKS.md under
"## Guided" (replacing that section, or adding it).

A 15-minute OGG of the guided body scan (`Presets/body-scan.yaml`, its lines spoken by festival)
with a warm speech cache, against the same preset with its `guide:` taken out, at 48 kHz stereo:
alternated pairs (A, B, B, A, ...) so that drift in the machine cancels; the ratio's min, median and
max. The cache is warmed by one render first, in a folder of its own (XDG_CACHE_HOME).
MEDRENDER names the binary (default: the release build); BENCH_PAIRS the pairs (default 5).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
PAIRS = int(os.environ.get("BENCH_PAIRS", "5"))
PRESET, MINUTES = "body-scan", 15


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    with tempfile.TemporaryDirectory(prefix="medrender-bench-guided-") as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        source = os.path.join(ROOT, "Presets", PRESET + ".yaml")
        preset = yaml.safe_load(open(source, encoding="utf-8"))
        preset.pop("guide")
        plain = os.path.join(tmp, PRESET + "-unguided.yaml")
        yaml.safe_dump(preset, open(plain, "w", encoding="utf-8"), allow_unicode=True)
        guided = [MEDRENDER, "--preset", PRESET, "--minutes", str(MINUTES), "-o", os.path.join(tmp, "guided.ogg")]
        unguided = [MEDRENDER, "--preset", plain, "--minutes", str(MINUTES), "-o", os.path.join(tmp, "plain.ogg")]
        timed(guided, env)  # warms the speech cache
        ratios, ta, tb = [], [], []
        for i in range(PAIRS):
            if i % 2 == 0:
                a, b = timed(guided, env), timed(unguided, env)
            else:
                b, a = timed(unguided, env), timed(guided, env)
            ta.append(a)
            tb.append(b)
            ratios.append(a / b)

    cpu = subprocess.run(["sh", "-c", "nproc; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.split("\n")
    section = "\n".join([
        "## Guided",
        "",
        f"Measured by `make bench` (`python3 scripts/bench-guided.py`, {PAIRS} alternated pairs) on {cpu[0].strip()} cores "
        f"({cpu[1].strip()}), release build: a {MINUTES}-min OGG of `{PRESET}` at 48000 Hz stereo, its lines spoken by festival "
        "from a warm speech cache, against the same preset without `guide:`.",
        "",
        "| comparison | ratio min / median / max | guided s (median) | unguided s (median) | target |",
        "| --- | --- | --- | --- | --- |",
        f"| {MINUTES}-min OGG: guided (warm cache) / without guidance | {min(ratios):.2f} / {statistics.median(ratios):.2f} / "
        f"{max(ratios):.2f} | {statistics.median(ta):.2f} | {statistics.median(tb):.2f} | ≤ 1.05 |",
        "",
        "Each pair's ratio, in the order run: " + ", ".join(f"{r:.3f}" for r in ratios) + ".",
        "",
    ])
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    if re.search(r"^## Guided$", text, flags=re.M):
        text = re.sub(r"^## Guided\n.*?(?=^## |\Z)", section + "\n", text, flags=re.M | re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w", encoding="utf-8").write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
