#!/usr/bin/env python3
"""The limiter at a loud target against ffmpeg's loudnorm, on the same mix, as `make bench` runs it.

For each stock preset, 2 minutes at 48 kHz stereo:
  - ours: `medrender --loudness -12 -o ours.wav` (gain, then the true-peak limiter at -1 dBTP);
  - the mix: the same session at `--loudness -30`, where the limiter does nothing (its peaks are
    far under the ceiling), so it is ours before the gain and the limiter;
  - loudnorm: ffmpeg's `loudnorm` in two passes on that mix (I=-12, TP=-1, LRA=20; the first pass's
    measurements fed to the second, `linear=true`: loudnorm falls back to its dynamic mode itself
    when a linear gain cannot hold the ceiling).
Each result is read by ffmpeg's own `ebur128` meter (true peak at 4x): integrated loudness, true peak,
and how far its momentary loudness (400 ms) falls under the mix's momentary loudness with a plain
gain to the result's integrated loudness: the mean and the 99th percentile of that shortfall over
the windows that are not silent. That shortfall is the gain reduction a listener hears (pumping is
its movement), measured the same way for both.
Writes its table into BENCHMARKS.md under its own heading.
"""
import json, os, re, statistics, subprocess, sys, tempfile

from benchmarks import write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.path.join(ROOT, ".build", "release", "medrender")
HEADING = "## The limiter at -12 LUFS against loudnorm"
MINUTES = os.environ.get("BENCH_LIMITER_MINUTES", "2")
TARGET, CEILING = -12.0, -1.0


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"bench-limiter: {' '.join(args[:4])}…: {result.stderr.strip()[-400:]}")
    return result


def meter(path):
    """Integrated loudness, true peak and the momentary loudness every 100 ms, by ffmpeg's ebur128."""
    err = run(["ffmpeg", "-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"]).stderr
    momentary = [float(m) for m in re.findall(r"\bM:\s*(-?[\d.]+|-inf)", err) if m != "-inf"]
    summary = err[err.rfind("Summary:"):]
    integrated = float(re.search(r"I:\s*(-?[\d.]+) LUFS", summary).group(1))
    peak = float(re.search(r"Peak:\s*(-?[\d.]+|-inf) dBFS", summary).group(1))
    return integrated, peak, momentary


def shortfall(result, mix):
    """The result's momentary loudness under the mix's with a plain gain to the result's level:
    mean and 99th percentile, over windows within 40 dB of the loudest."""
    (level, _, m_result), (mix_level, _, m_mix) = result, mix
    gain = level - mix_level
    top = max(m_mix)
    gaps = [max(0.0, (b + gain) - a) for a, b in zip(m_result, m_mix) if b > top - 40]
    gaps.sort()
    return statistics.mean(gaps), gaps[int(0.99 * (len(gaps) - 1))]


def loudnorm(mix, out):
    first = run(["ffmpeg", "-hide_banner", "-nostats", "-i", mix, "-af",
                 f"loudnorm=I={TARGET}:TP={CEILING}:LRA=20:print_format=json", "-f", "null", "-"]).stderr
    m = json.loads(first[first.rfind("{"):first.rfind("}") + 1])
    second = run(["ffmpeg", "-hide_banner", "-nostats", "-y", "-i", mix, "-af",
                  f"loudnorm=I={TARGET}:TP={CEILING}:LRA=20:measured_I={m['input_i']}:measured_TP={m['input_tp']}:"
                  f"measured_LRA={m['input_lra']}:measured_thresh={m['input_thresh']}:offset={m['target_offset']}:"
                  "linear=true:print_format=json", "-ar", "48000", "-c:a", "pcm_f32le", out]).stderr
    mode = json.loads(second[second.rfind("{"):second.rfind("}") + 1]).get("normalization_type", "?")
    return mode


def main():
    if not os.access(MEDRENDER, os.X_OK):
        sys.exit("bench-limiter: build the release first (make release)")
    presets = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "Presets")) if f.endswith(".yaml"))
    rows, ours_err, norm_err, ours_gr, norm_gr = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in presets:
            common = ["--preset", name, "--minutes", MINUTES, "--rate", "48000", "--channels", "2", "--bits", "32f"]
            ours, mix, norm = (os.path.join(tmp, f"{name}-{k}.wav") for k in ("ours", "mix", "norm"))
            run([MEDRENDER] + common + ["--loudness", str(TARGET), "-o", ours])
            run([MEDRENDER] + common + ["--loudness", "-30", "-o", mix])
            mode = loudnorm(mix, norm)
            a, m, n = meter(ours), meter(mix), meter(norm)
            ga, gn = shortfall(a, m), shortfall(n, m)
            ours_err.append(abs(a[0] - TARGET)); norm_err.append(abs(n[0] - TARGET))
            ours_gr.append(ga[0]); norm_gr.append(gn[0])
            rows.append(f"| {name} | {a[0]:.1f} / {a[1]:+.1f} | {ga[0]:.2f} / {ga[1]:.1f} | "
                        f"{n[0]:.1f} / {n[1]:+.1f} | {gn[0]:.2f} / {gn[1]:.1f} | {mode} |")
            print(rows[-1], flush=True)
    load = os.getloadavg()
    med = statistics.median
    table = [
        HEADING, "",
        f"Measured by `make bench` (`python3 scripts/bench-limiter.py`), release build, every stock preset at "
        f"{MINUTES} minutes, 48 kHz stereo, target {TARGET:.0f} LUFS under {CEILING:.0f} dBTP; read by ffmpeg's `ebur128` "
        f"(true peak). Gain reduction: how far the momentary loudness falls under the unlimited mix's at a plain gain "
        f"(mean / 99th percentile, dB). Load average at the end {load[0]:.1f}.", "",
        "| preset | ours LUFS / dBTP | ours reduction | loudnorm LUFS / dBTP | loudnorm reduction | loudnorm mode |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows, "",
        f"Median distance from the target: ours {med(ours_err):.2f} LU, loudnorm {med(norm_err):.2f} LU (largest "
        f"{max(ours_err):.2f} and {max(norm_err):.2f}). Median mean reduction: ours {med(ours_gr):.2f} dB, loudnorm "
        f"{med(norm_gr):.2f} dB.", "",
    ]
    write_section(HEADING, table)


if __name__ == "__main__":
    main()
