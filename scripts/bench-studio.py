#!/usr/bin/env python3
"""Measures the studio's listening from a point, on loopback, and writes the figures into
BENCHMARKS.md under "## Studio" (replacing that section, or adding it).

- the time from the request to the first second of audio of a 15-minute session heard from minute
  12, against one heard from 0: cold (the whole session's pass 1 runs first) and warm (its measured
  loudness cached); medians of RUNS;
- the same as OGG Vorbis (`format=ogg`): the time to the first byte, and to the first 32 KiB
  (about two seconds of audio at the default quality);
- the time to check and plan a preset (POST /studio/plan), as the page asks while one types;
- in headless Chromium (scripts/studio-browser.py), the time from the last keystroke in the form to
  the timeline redrawn for the new plan, the page's debounce included (wall clock, medians of 8).

The WAV stream is 16-bit, so "the first second" is 192,000 bytes of audio.
MEDRENDER names the binary (default: the release build).
"""
import json
import os
import shutil
import re
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
RUNS = 5
SECOND = 44 + 48000 * 2 * 2


def start():
    proc = subprocess.Popen([MEDRENDER, "studio", "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.match(r"(http://127\.0\.0\.1:\d+)/studio", line)
    if not m:
        proc.kill()
        raise SystemExit("the studio did not start: " + line)
    return proc, m.group(1)


def post(base, path, body):
    request = urllib.request.Request(base + path, data=body.encode(), method="POST", headers={"Content-Type": "application/yaml"})
    start = time.perf_counter()
    with urllib.request.urlopen(request) as r:
        answer = json.load(r)
    return answer, time.perf_counter() - start


def first_second(url):
    start = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        got = 0
        while got < SECOND:
            chunk = r.read(65536)
            if not chunk:
                break
            got += len(chunk)
    return time.perf_counter() - start


def first_bytes(url, count):
    start = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        got = 0
        while got < count:
            chunk = r.read1(65536) if hasattr(r, "read1") else r.read(1)
            if not chunk:
                break
            got += len(chunk)
    return time.perf_counter() - start


REDRAW_STEPS = """(async () => {
  const d = document, $ = (id) => d.getElementById(id), sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const seq = () => parseInt(d.body.getAttribute('data-plan-seq') || '0', 10);
  async function until(test) { const end = Date.now() + 60000; while (!test()) { if (Date.now() > end) throw new Error('timeout'); await sleep(5); } }
  await until(() => seq() > 0 && d.querySelector('#timeline svg'));
  const times = [];
  for (let i = 0; i < 8; i++) {
    const n = seq(), el = $('f-exhale');
    el.value = String(5 + (i % 4));
    el.dispatchEvent(new Event('input', { bubbles: true }));
    await until(() => seq() > n && !d.body.hasAttribute('data-busy'));
    times.push(parseFloat(d.body.getAttribute('data-redraw-ms')));
    await sleep(200);
  }
  return times;
})()"""


def redraw(base):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return None
    steps = os.path.join(ROOT, ".build", "bench-studio-redraw.js")
    with open(steps, "w", encoding="utf-8") as f:
        f.write(REDRAW_STEPS)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "studio-browser.py"), "--chromium", chromium,
                          "--url", base + "/studio#preset=box-breath", "--width", "1280", "--steps", steps, "--timeout", "180"],
                         capture_output=True, text=True)
    try:
        return json.loads(run.stdout)["result"]
    except (ValueError, KeyError):
        return None


def main():
    preset = open(os.path.join(ROOT, "Presets", "box-breath.yaml"), encoding="utf-8").read()
    proc, base = start()
    try:
        figures = {"cold 12": [], "cold 0": [], "warm 12": [], "warm 0": [], "plan": [],
                   "ogg byte 12": [], "ogg byte 0": [], "ogg 32k 12": [], "ogg 32k 0": [],
                   "ogg cold 12": [], "ogg cold 0": []}
        for run in range(RUNS):
            for point, seconds in (("12", 720), ("0", 0)):
                # A bed's level moved by a hundredth of a dB per run: a new mix, so pass 1 runs again.
                yaml = preset.replace("level: -26", f"level: -{26 + (run * 2 + (point == '0')) / 100:.2f}")
                take, _ = post(base, "/studio/listen", yaml)
                figures[f"cold {point}"].append(first_second(f"{base}{take['url']}?from={seconds}"))
                figures[f"warm {point}"].append(first_second(f"{base}{take['url']}?from={seconds}"))
            figures["plan"].append(post(base, "/studio/plan", preset.replace("4-4-4-4", f"4-4-{5 + run}-4"))[1])
            for point, seconds in (("12", 720), ("0", 0)):
                yaml = preset.replace("level: -26", f"level: -{27 + (run * 2 + (point == '0')) / 100:.2f}")
                take, _ = post(base, "/studio/listen", yaml)
                figures[f"ogg cold {point}"].append(first_bytes(f"{base}{take['url']}?from={seconds}&format=ogg", 32768))
            # OGG: the session's loudness is known by now (the warm case), as when one listens again.
            take, _ = post(base, "/studio/listen", preset)
            first_second(f"{base}{take['url']}?from=0")
            for point, seconds in (("12", 720), ("0", 0)):
                url = f"{base}{take['url']}?from={seconds}&format=ogg"
                figures[f"ogg byte {point}"].append(first_bytes(url, 1))
                figures[f"ogg 32k {point}"].append(first_bytes(url, 32768))
        redraws = redraw(base)
    finally:
        proc.terminate()
        proc.wait()
    m = {k: statistics.median(v) for k, v in figures.items()}
    if redraws:
        redraw_text = (f"In headless Chromium, from the last keystroke in the form to the timeline redrawn (the\n"
                       f"120 ms debounce included, wall clock, 8 edits of box-breath's exhale): median\n"
                       f"{statistics.median(redraws):.0f} ms, longest {max(redraws):.0f} ms (goal: 300 ms).")
    else:
        redraw_text = "The redraw time was not measured (no Chromium)."
    build = "release" if "/release/" in MEDRENDER else os.path.basename(os.path.dirname(MEDRENDER)) + " build"
    section = f"""## Studio

Listening from a point (`scripts/bench-studio.py`, {build}, medians of {RUNS}, {os.cpu_count()} cores at a
load average of {os.getloadavg()[0]:.1f}): the time from the request to the first second of audio of
box-breath (15 minutes, 48 kHz, streamed as a 16-bit WAV), and of the same streamed as OGG.

| | from 0 | from minute 12 | ratio |
| --- | --- | --- | --- |
| cold (pass 1 over the whole session first) | {m['cold 0']:.3f} s | {m['cold 12']:.3f} s | {m['cold 12'] / m['cold 0']:.2f} |
| warm (the session's loudness cached) | {m['warm 0']:.3f} s | {m['warm 12']:.3f} s | {m['warm 12'] / m['warm 0']:.2f} |
| OGG (`format=ogg`), cold, first 32 KiB | {m['ogg cold 0']:.3f} s | {m['ogg cold 12']:.3f} s | {m['ogg cold 12'] / m['ogg cold 0']:.2f} |
| OGG, first byte (loudness cached) | {m['ogg byte 0']:.3f} s | {m['ogg byte 12']:.3f} s | {m['ogg byte 12'] / m['ogg byte 0']:.2f} |
| OGG, first 32 KiB (loudness cached) | {m['ogg 32k 0']:.3f} s | {m['ogg 32k 12']:.3f} s | {m['ogg 32k 12'] / m['ogg 32k 0']:.2f} |

Goal: from minute 12 within 1.2× of from 0 (a cold start runs pass 1 over the whole session
first, whatever the point; from a point, the master chain also mixes the 2 s before it for the
limiter, a few tens of milliseconds, which is what a warm ratio above 1 is made of). Checking and planning the preset (`POST /studio/plan`, sounds
cached): {m['plan'] * 1000:.0f} ms.

{redraw_text}
"""
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    if "## Studio\n" in text:
        text = re.sub(r"## Studio\n.*?(?=\n## |\Z)", section.rstrip("\n") + "\n", text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w", encoding="utf-8").write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
