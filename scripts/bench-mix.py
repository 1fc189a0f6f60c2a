#!/usr/bin/env python3
"""The mix's balance on every stock preset at default settings, as `make bench` runs it.

For each preset, BENCH_MIX_MINUTES minutes (default 3; `preset`: the preset's own length) at BENCH_MIX_RATE Hz (default 48000), 32-bit
float WAV, with stems:
  - the programme's integrated loudness and loudness range, by ffmpeg's `ebur128`;
  - the voice's own loudness: its stem's, by the same meter (the target in a session with a voice);
  - the limiter's gain reduction: the file against the same session at -40 LUFS (where the limiter
    does nothing), both brought to one gain by their reports, over 50-ms windows: the largest over
    the spoken lines of the cue sheet, and the largest anywhere;
  - the bells: the largest momentary loudness (400 ms) of the bells' stem while a bell strikes (its
    first 3 s), against the programme's integrated loudness and the voice stem's largest momentary;
  - the cues: their stem's largest momentary loudness, against the same.
Prints one row a preset; with --write, writes the table into BENCHMARKS.md under its heading.
"""
import json, os, re, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
MINUTES = os.environ.get("BENCH_MIX_MINUTES", "3")
LENGTH = [] if MINUTES == "preset" else ["--minutes", MINUTES]
RATE = int(os.environ.get("BENCH_MIX_RATE", "48000"))
HEADING = "## The mix's balance"


def run(args, env=None):
    result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env)
    if result.returncode != 0:
        sys.exit(f"bench-mix: {' '.join(args[:4])}…: {result.stderr.strip()[-400:]}")
    return result


def meter(path):
    """Integrated loudness, loudness range and the momentary loudness every 100 ms, by ffmpeg."""
    err = run(["ffmpeg", "-hide_banner", "-nostats", "-i", path, "-af", "ebur128", "-f", "null", "-"]).stderr
    momentary = [float(m) if m != "-inf" else -120.0 for m in re.findall(r"\bM:\s*(-?[\d.]+|-inf)", err)]
    summary = err[err.rfind("Summary:"):]
    integrated = float(re.search(r"I:\s*(-?[\d.]+|-inf) LUFS", summary).group(1))
    lra = float(re.search(r"LRA:\s*(-?[\d.]+) LU", summary).group(1))
    return integrated, lra, np.array(momentary)



def mono(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-ac", "2", "-"], capture_output=True, check=True).stdout
    x = np.frombuffer(out, dtype=np.float32).reshape(-1, 2)
    return x


def window_power(x, hop):
    n = len(x) // hop
    p = (x[: n * hop].astype(np.float64) ** 2).reshape(n, hop, -1).sum(axis=(1, 2))
    return p


def audit(preset, folder, env):
    options = ["--preset", preset] + LENGTH + ["--rate", str(RATE), "--bits", "32f", "--json"]
    out = os.path.join(folder, f"{preset}.wav")
    stems = os.path.join(folder, f"{preset}-stems")
    report = json.loads(run([MEDRENDER] + options + ["--stems", stems, "-o", out], env).stdout)
    reference = json.loads(run([MEDRENDER] + options + ["--loudness", "-40", "-o", os.path.join(folder, "ref.wav")], env).stdout)
    run([MEDRENDER, "cues", "--preset", preset] + LENGTH + ["--rate", str(RATE), "-o", os.path.join(folder, "cues.json")], env)
    events = json.load(open(os.path.join(folder, "cues.json")))["events"]
    lines = [(e["frame"], e["endFrame"]) for e in events if e["type"] == "voice" and e.get("endFrame")]
    bells = [e["frame"] for e in events if e["type"] == "bell"]
    integrated, lra, momentary = meter(out)
    voice_stem = os.path.join(stems, f"{preset}-voice.wav")
    speech = meter(voice_stem)[0] if lines and os.path.exists(voice_stem) else None
    # Gain reduction over 50-ms windows where the reference is not silent.
    hop = RATE // 20
    a, b = window_power(mono(out), hop), window_power(mono(os.path.join(folder, "ref.wav")), hop)
    shift = 10 ** ((report["gainDecibels"] - reference["gainDecibels"]) / 10)
    live = b > 1e-10 * hop
    reduction = np.zeros_like(a)
    reduction[live] = 10 * np.log10(b[live] * shift / np.maximum(a[live], 1e-30))
    spoken = np.zeros_like(live)
    for start, end in lines:
        spoken[start // hop: end // hop + 1] = True
    on_lines = max(0.0, float(reduction[spoken & live].max())) if (spoken & live).any() else 0.0
    # Momentary loudness (ffmpeg's, every 100 ms, over the 400 ms before) while each bell strikes.
    def largest_momentary(spans, momentary):
        values = [momentary[int(s / RATE * 10) + k] for s, e in spans for k in range(int((e - s) / RATE * 10) + 4)
                  if int(s / RATE * 10) + k < len(momentary)]
        return max(values) if values else None
    bell_stem = os.path.join(stems, f"{preset}-bells.wav")
    bell = largest_momentary([(f, f + 3 * RATE) for f in bells], meter(bell_stem)[2]) if bells else None
    voice_max = largest_momentary(lines, meter(voice_stem)[2]) if speech is not None else None
    cue_stem = os.path.join(stems, f"{preset}-cues.wav")
    cue = float(meter(cue_stem)[2].max()) if os.path.exists(cue_stem) else None
    return dict(preset=preset, integrated=integrated, speech=speech, lra=lra, gain=report["gainDecibels"],
                line_reduction=on_lines, reduction=max(0.0, float(reduction[live].max())), bell=bell, voice_max=voice_max,
                cue=cue)


def main():
    presets = sorted(p[:-5] for p in os.listdir(os.path.join(ROOT, "Presets")) if p.endswith(".yaml"))
    if len(sys.argv) > 1 and sys.argv[1] != "--write":
        presets = [p for p in sys.argv[1:] if p != "--write"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(ROOT, ".build", "bench-cache"))
        for preset in presets:
            r = audit(preset, folder, env)
            rows.append(r)
            fmt = lambda v: "–" if v is None else f"{v:.1f}"
            bell_over = None if r["bell"] is None else r["bell"] - r["integrated"]
            cue_over = None if r["cue"] is None else r["cue"] - r["integrated"]
            print(f"{preset:20s} I {r['integrated']:6.1f} voice {fmt(r['speech']):>6} LRA {r['lra']:4.1f} gain {r['gain']:+5.1f} "
                  f"GR lines {r['line_reduction']:4.2f} all {r['reduction']:4.2f} bell M {fmt(r['bell'])} (I{fmt(bell_over) if bell_over is None else f'{bell_over:+.1f}'}) "
                  f"voice M {fmt(r['voice_max'])} cue M {fmt(r['cue'])} (I{fmt(cue_over) if cue_over is None else f'{cue_over:+.1f}'})", flush=True)
    if "--write" in sys.argv:
        from benchmarks import write_section
        table = ["| preset | integrated | voice | LRA | gain | limiter on lines | limiter anywhere | bell M − I | cue M − I | voice M max |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            f = lambda v, u="": "–" if v is None else f"{v:.1f}{u}"
            table.append(f"| {r['preset']} | {f(r['integrated'])} | {f(r['speech'])} | {r['lra']:.1f} | {r['gain']:+.1f} | "
                         f"{r['line_reduction']:.2f} | {r['reduction']:.2f} | {f(None if r['bell'] is None else r['bell'] - r['integrated'])} | "
                         f"{f(None if r['cue'] is None else r['cue'] - r['integrated'])} | "
                         f"{f(r['voice_max'])} |")
        write_section(HEADING, [HEADING, "", f"Every stock preset at default settings, {'its own length' if MINUTES == 'preset' else f'{MINUTES} minutes'} at {RATE} Hz, 32-bit float WAV "
                      "(`scripts/bench-mix.py`, Piper speaking the guided presets): the file's integrated loudness and range "
                      "(ffmpeg `ebur128`), the voice stem's, the gain, the limiter's largest gain reduction (dB, against the "
                      "session at −40 LUFS, 50-ms windows) on the spoken lines and anywhere, the bells' stem's largest "
                      "momentary loudness against the file's integrated, the cues' stem's likewise, and the voice stem's largest "
                      "momentary.", ""] + table)


if __name__ == "__main__":
    main()
