#!/usr/bin/env python3
"""Generated ambience and beats against a looped bed, as `make bench` runs them.

A 15-minute OGG (48 kHz stereo, q5) of box breathing with binaural beats and a generated ocean
(`generator: ocean`) against the same session with the looped ocean (`sound: ocean`) and no
beats, in alternated pairs (A, B, B, A, ...) in the same run, so the machine's drift cancels;
the ratio's min, median and max, of the time and of the processor time (user and system: what
the render costs, whatever the other core does), each run's peak memory (/usr/bin/time -v), and
the machine's load average when it started. Writes its table into BENCHMARKS.md under its own heading.
"""
import os, re, statistics, subprocess, sys, tempfile, time

from benchmarks import write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.path.join(ROOT, ".build", "release", "medrender")
PAIRS = int(os.environ.get("BENCH_PAIRS", "3"))
HEADING = "## Generated ambience and beats"

BASE = """name: bench-{name}
pattern: 4-4-4-4
settle: 20
closing: 30
cues:
  inhale: {{ tone: bell, pitch: 659.26, gain: -12 }}
  exhale: {{ tone: bell, pitch: 440, gain: -12 }}
ambience:
  beds:
    - {{ {bed}, level: -26 }}
  fade-in: 8
  fade-out: 15
bells: {{ start: bell, end: bell }}
{beats}"""
BEATS = """beats:
  kind: binaural
  beat: 10
  carrier: 200
  gain: -30
  timeline:
    - { at: breathing, beat: 10 }
    - { at: closing, beat: 4, curve: half-cosine }
"""


def render(preset, out):
    """Seconds, processor seconds (user and system) and peak RSS (MiB) of one render."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-v", MEDRENDER, "--preset", preset, "--minutes", "15", "--rate", "48000",
                             "--quality", "5", "-o", out], capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"bench-palette: {preset}: {result.stderr.strip()}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024
    cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", result.stderr).group(1)) for kind in ("User", "System"))
    return seconds, cpu, rss


def main():
    if not os.access(MEDRENDER, os.X_OK):
        sys.exit("bench-palette: build the release first (make release)")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        generated = os.path.join(tmp, "generated.yaml")
        looped = os.path.join(tmp, "looped.yaml")
        with open(generated, "w") as f:
            f.write(BASE.format(name="generated", bed="generator: ocean", beats=BEATS))
        with open(looped, "w") as f:
            f.write(BASE.format(name="looped", bed="sound: ocean", beats=""))
        ratios, cpu_ratios = [], []
        times, cpus, memory = ({"generated": [], "looped": []} for _ in range(3))
        for pair in range(PAIRS):
            order = ["generated", "looped"] if pair % 2 == 0 else ["looped", "generated"]
            got, got_cpu = {}, {}
            for which in order:
                seconds, cpu, rss = render(generated if which == "generated" else looped, os.path.join(tmp, which + ".ogg"))
                got[which], got_cpu[which] = seconds, cpu
                times[which].append(seconds)
                cpus[which].append(cpu)
                memory[which].append(rss)
            ratios.append(got["generated"] / got["looped"])
            cpu_ratios.append(got_cpu["generated"] / got_cpu["looped"])
    med = statistics.median
    table = [
        HEADING, "",
        f"Measured by `make bench` (`python3 scripts/bench-palette.py`, {PAIRS} alternated pairs), release build; "
        f"load average at the start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) on {os.cpu_count()} cores.", "",
        "| comparison | ratio min / median / max | generated s (median) | looped s (median) | target |",
        "| --- | --- | --- | --- | --- |",
        f"| 15-min OGG q5, 48 kHz: binaural beats + generated ocean / looped ocean, no beats | "
        f"{min(ratios):.2f} / {med(ratios):.2f} / {max(ratios):.2f} | {med(times['generated']):.2f} | {med(times['looped']):.2f} | ≤ 1.05 |",
        f"| the same, in processor time (user + system) | "
        f"{min(cpu_ratios):.2f} / {med(cpu_ratios):.2f} / {max(cpu_ratios):.2f} | {med(cpus['generated']):.2f} | {med(cpus['looped']):.2f} | |", "",
        "| peak memory (MiB) | generated | looped |", "| --- | --- | --- |",
        f"| max of the runs | {max(memory['generated']):.1f} | {max(memory['looped']):.1f} |", "",
    ]
    write_section(HEADING, table)


if __name__ == "__main__":
    main()
