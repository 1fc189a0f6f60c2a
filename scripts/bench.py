#!/usr/bin/env python3
"""Whole-process benchmarks of medrender, as `make bench` runs them.

Pairs are alternated (A, B, B, A, ...) so that drift in the machine cancels, and each ratio is
reported with its min, median and max. Writes the table into BENCHMARKS.md.

  medrender OGG   vs the floor: libvorbis alone encoding medrender's own mix, a small C program
                     (scripts/floor/vorbis-floor.c: libsndfile reads the 32-bit float mix, libvorbisenc
                     encodes it at the same quality, 1024 frames at a time, as oggenc does)
  medrender OGG   vs an ffmpeg filter graph doing the nearest thing (aloop, adelay in samples,
                     amix normalize=0, afade; no loudness normalization, hard loop seams)
  medrender WAV   vs the same ffmpeg graph writing WAV
  peak memory     (/usr/bin/time -v) at 5, 60 and 180 minutes
  pieced OGG      (`pieced_rows`) the OGG on every core against the floor, to a file and to `-o -`,
                     on one thread (a build's -j share), against oggenc on the same WAV, a stream's
                     time to its first byte and first 64 KiB against one encoder's; peak memory
                     of an OGG render at 5, 60 and 180 minutes against `medrender --version`'s; and the
                     least an OGG render can take on two cores (`bound_row`): the floor's encode, a
                     libvorbis decode (scripts/floor/vorbis-decode.c) and the mix, in processor
                     time, shared perfectly, against the floor's wall time.
                     `python3 scripts/bench.py --pieced` runs these rows alone and only prints them.
  processor time  (`processor_rows`) a render on one thread (a build's share) against the floor:
                     the OGG, a 16-bit WAV against libsndfile writing the same mix
                     (scripts/floor/wav-floor.c), and a guided session with its speech cached;
                     `--processor` runs these alone and prints them. MEDRENDER names the binary.
  decode check    (`--decoded`) each stock preset's 15-min OGG: the share of its packets the check
                     decoded, written into BENCHMARKS.md
  library build   (`--build`) `build -j 2` of the stock library at 5 minutes against the floor
                     encoding each of its mixes, in processor time, written into BENCHMARKS.md
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import write_section  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
PRESET, MINUTES, RATE, QUALITY = "box-breath", 15, 48000, 5
PAIRS = int(os.environ.get("BENCH_PAIRS", "3"))
# The floor's ratio is the figure with a target close to 1: more pairs, so one noisy pair moves
# neither its median nor the verdict.
FLOOR_PAIRS = int(os.environ.get("BENCH_FLOOR_PAIRS", "7"))
FLOOR = os.path.join(ROOT, ".build", "vorbis-floor")
DECODE = os.path.join(ROOT, ".build", "vorbis-decode")
WAV_FLOOR = os.path.join(ROOT, ".build", "wav-floor")
GUIDED = "guided-sleep-478"


def compile_c(source, out, packages):
    """Compiles scripts/floor/`source` into `out` with the system's `packages` (gcc, pkg-config)."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", *packages], check=True, capture_output=True, text=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", out, os.path.join(ROOT, "scripts", "floor", source), *flags], check=True)


def build_floor():
    """Compiles the C floor, and the decode the bound adds to it."""
    compile_c("vorbis-floor.c", FLOOR, ["sndfile", "vorbisenc", "vorbis", "ogg"])
    compile_c("vorbis-decode.c", DECODE, ["vorbisfile"])
    compile_c("wav-floor.c", WAV_FLOOR, ["sndfile"])


def processor_seconds(cmd):
    """The wall and processor (user + system) seconds of `cmd`, from the kernel's accounting of the child."""
    before = os.times()
    start = time.perf_counter()
    run(cmd)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def bound_row(tmp, common, mix, count=PAIRS):
    """What an OGG render on two cores cannot go under, as a ratio to the floor's wall time: the
    processor time of the work it cannot leave out, shared perfectly between the two cores: the
    floor's encode, one libvorbis decode of the stream (the live decode check: the file's loudness
    and true peak as it decodes), and the mix with both passes (a render of the same session to a
    32-bit WAV, one thread, whose measures of its output stand for the check's measures of what
    it decodes). It leaves out the scout, the pre-rolls and every encoder's start."""
    floor_out = os.path.join(tmp, "bound-floor.ogg")
    ratios, walls, encodes, decodes, mixes = [], [], [], [], []
    for _ in range(count):
        wall, encode = processor_seconds([FLOOR, mix, floor_out, str(QUALITY)])
        walls.append(wall)
        _, decode = processor_seconds([DECODE, floor_out])
        _, mixing = processor_seconds([MEDRENDER, *common, "--bits", "32f", "--threads", "1", "-o", os.path.join(tmp, "bound.wav")])
        ratios.append((encode + decode + mixing) / 2 / wall)
        encodes.append(encode)
        decodes.append(decode)
        mixes.append(mixing)
    name = ("15-min OGG q5 on 2 cores, the least it can take: (the floor's encode + a decode + the mix, processor s) / 2 / the floor's wall"
            f" (medians: {statistics.median(encodes):.2f} + {statistics.median(decodes):.2f} + {statistics.median(mixes):.2f} s)")
    return (name, ratios, [(e + d + m) / 2 for e, d, m in zip(encodes, decodes, mixes)], walls, "under the goal, for it to be reachable")


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, **kw)


def timed(cmd):
    return processor_seconds(cmd)[0]


def ffmpeg_graph(tmp, out, codec):
    """The nearest ffmpeg equivalent of the session: the rain bed looped, a cue tone at every
    phase start (adelay in samples), the intro and outro voice, the bells, mixed with amix."""
    sheet = os.path.join(tmp, "cues.json")
    run([MEDRENDER, "cues", "--preset", PRESET, "--minutes", str(MINUTES), "-o", sheet])
    data = json.load(open(sheet))
    frames, cues = data["frames"], data["cues"]
    closing = [s for s in data["sections"] if s["name"] == "Closing"][0]["frame"]
    tone = os.path.join(tmp, "cue.wav")
    run(["sox", "-n", "-r", str(RATE), "-c", "2", tone, "synth", "0.6", "sine", "660", "fade", "q", "0.005", "0.6", "0.15"])
    inputs = ["-stream_loop", "-1", "-i", "Sounds/rain.ogg", "-i", tone, "-i", "Sounds/voice-intro.ogg",
              "-i", "Sounds/voice-outro.ogg", "-i", "Sounds/bell.ogg"]
    n = len(cues)
    parts = [f"[0]aresample={RATE},atrim=end_sample={frames},afade=t=in:d=8,afade=t=out:st={frames / RATE - 15}:d=15,volume=0.2[bed]",
             f"[1]asplit={n}" + "".join(f"[s{i}]" for i in range(n))]
    parts += [f"[s{i}]adelay={c['frame']}S:all=1[c{i}]" for i, c in enumerate(cues)]
    parts += [f"[2]aresample={RATE},adelay={2 * RATE}S:all=1[vi]",
              f"[3]aresample={RATE},adelay={closing + RATE}S:all=1[vo]",
              f"[4]aresample={RATE},asplit=2[b0][b1]", "[b0]anull[bs]", f"[b1]adelay={closing + 9 * RATE}S:all=1[be]"]
    labels = "[bed]" + "".join(f"[c{i}]" for i in range(n)) + "[vi][vo][bs][be]"
    parts.append(f"{labels}amix=inputs={n + 5}:normalize=0:duration=first,atrim=end_sample={frames}[out]")
    script = os.path.join(tmp, "graph.txt")
    open(script, "w").write(";\n".join(parts))
    return ["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex_script", script, "-map", "[out]",
            "-ar", str(RATE), "-ac", "2", *codec, out]


def pairs(a, b, count=PAIRS):
    """Alternates a and b `count` times; returns the a/b ratios and both series."""
    ratios, ta, tb = [], [], []
    for i in range(count):
        if i % 2 == 0:
            x, y = timed(a), timed(b)
        else:
            y, x = timed(b), timed(a)
        ta.append(x)
        tb.append(y)
        ratios.append(x / y)
    return ratios, ta, tb


def summary(values, unit=""):
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}{unit}"


def peak_memory(minutes, out):
    result = subprocess.run(["/usr/bin/time", "-v", MEDRENDER, "--preset", PRESET, "--minutes", str(minutes), "-o", out],
                            cwd=ROOT, capture_output=True, text=True, check=True)
    os.remove(out)
    for line in result.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1]) / 1024
    raise RuntimeError("no memory figure")


def peak_rss(cmd):
    """Peak resident memory of `cmd` in MiB (/usr/bin/time -v)."""
    result = subprocess.run(["/usr/bin/time", "-v", *cmd], cwd=ROOT, capture_output=True, text=True, check=True)
    for line in result.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split()[-1]) / 1024
    raise RuntimeError("no memory figure")


def stream_start(cmd, count=65536):
    """Seconds from starting `cmd` to its first byte on standard output and to its first `count`
    bytes, read as a player reads a stream; the rest is read to the end so the render finishes."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = process.stdout.read(1)
    first_at = time.perf_counter() - start
    got = len(first)
    while got < count:
        chunk = process.stdout.read1(count - got)
        if not chunk:
            break
        got += len(chunk)
    count_at = time.perf_counter() - start
    while process.stdout.read1(1 << 20):
        pass
    if process.wait() != 0:
        raise RuntimeError(f"{cmd}: exit {process.returncode}")
    return first_at, count_at


def stream_start_pairs(a, b, count=PAIRS):
    """Alternates streams a and b: the a/b ratios of the time to the first byte and to 64 KiB."""
    first, bulk, fa, fb = [], [], [], []
    for i in range(count):
        if i % 2 == 0:
            x, y = stream_start(a), stream_start(b)
        else:
            y, x = stream_start(b), stream_start(a)
        first.append(x[0] / y[0])
        bulk.append(x[1] / y[1])
        fa.append(x)
        fb.append(y)
    return first, bulk, fa, fb


def pieced_rows(tmp, common, mix):
    """The OGG encoded in pieces on every core: (rows, memory lines, load averages seen)."""
    loads = [os.getloadavg()[0]]
    ogg = [MEDRENDER, *common, "--quality", str(QUALITY), "-o", os.path.join(tmp, "p.ogg")]
    one = [MEDRENDER, *common, "--quality", str(QUALITY), "--threads", "1", "-o", os.path.join(tmp, "p1.ogg")]
    piped = ["sh", "-c", f"exec {MEDRENDER} {' '.join(common)} --quality {QUALITY} -o - > {os.path.join(tmp, 'p.pipe.ogg')}"]
    floor = [FLOOR, mix, os.path.join(tmp, "floor.ogg"), str(QUALITY)]
    oggenc = ["oggenc", "-Q", "-q", str(QUALITY), "-o", os.path.join(tmp, "oggenc.ogg"), mix]
    rows = []
    r, a, b = pairs(ogg, floor, FLOOR_PAIRS)
    rows.append(("15-min OGG q5, every core: medrender / the C floor (one core)", r, a, b, "≤ 0.60 (ideal 0.50)"))
    rows.append(bound_row(tmp, common, mix))
    loads.append(os.getloadavg()[0])
    r, a, b = pairs(piped, floor)
    rows.append(("15-min OGG q5 to `-o -`: medrender / the C floor", r, a, b, "≤ 0.60"))
    r, a, b = pairs(ogg, oggenc)
    rows.append(("15-min OGG q5: medrender (its own mix) / oggenc on the same WAV", r, a, b, "< 1"))
    r, a, b = pairs(one, floor)
    rows.append(("15-min OGG q5, `--threads 1` (a build's -j share): medrender / the C floor", r, a, b, "≈ 1.05"))
    # A stream's start: pieces on every core against one encoder (`--threads 1`), both to `-o -`.
    stream = [MEDRENDER, *common, "--quality", str(QUALITY), "-o", "-"]
    first, bulk, fa, fb = stream_start_pairs(stream, stream[:-2] + ["--threads", "1", "-o", "-"])
    rows.append(("15-min OGG q5 to `-o -`, time to the first byte: every core / one encoder", first,
                 [x[0] for x in fa], [x[0] for x in fb], "≤ 1 (does not grow)"))
    rows.append(("15-min OGG q5 to `-o -`, time to the first 64 KiB: every core / one encoder", bulk,
                 [x[1] for x in fa], [x[1] for x in fb], "≤ 1 (does not grow)"))
    loads.append(os.getloadavg()[0])
    base = peak_rss([MEDRENDER, "--version"])
    memory = [(m, peak_rss([MEDRENDER, "--preset", PRESET, "--minutes", str(m), "--rate", str(RATE), "--quality", str(QUALITY),
                            "-o", os.path.join(tmp, f"mem{m}.ogg")])) for m in (5, 15, 60, 180)]
    lines = ["", "| OGG render (48 kHz stereo, every core) | peak RSS (MiB) | over `--version` (MiB) |", "| --- | --- | --- |",
             f"| `medrender --version` | {base:.1f} | 0 |"]
    lines += [f"| {m} min | {mem:.1f} | {mem - base:.1f} |" for m, mem in memory]
    # The beds (48 kHz files) resampled as they load: the same session at the CD's rate.
    cd = peak_rss([MEDRENDER, "--preset", PRESET, "--minutes", str(MINUTES), "--rate", "44100", "--quality", str(QUALITY),
                   "-o", os.path.join(tmp, "mem-cd.ogg")])
    lines.append(f"| {MINUTES} min at 44.1 kHz (the beds resampled as they load) | {cd:.1f} | {cd - base:.1f} |")
    lines += ["", "Target: at most 16 MiB over `--version`, flat in the session's length."]
    # Where a 15-minute render's memory goes: each step adds one part to the one before.
    steps = [("`medrender --version`: the runtime and the libraries mapped", [MEDRENDER, "--version"]),
             ("the cues alone, to WAV: the preset, the plan, both passes' mixers and buffers",
              [MEDRENDER, *common, "--layers", "cues", "--threads", "1", "-o", os.path.join(tmp, "parts-cues.wav")]),
             ("every layer, to WAV, one thread: the sounds held (the voice, the bell and the cue tones) and the rain, generated as it plays two 1-s chunks of both ears at a time (0.7 MiB at 48 kHz)",
              [MEDRENDER, *common, "--threads", "1", "-o", os.path.join(tmp, "parts-one.wav")]),
             ("every layer, to WAV, every core: pass 1's parts side by side, pass 2's ring",
              [MEDRENDER, *common, "-o", os.path.join(tmp, "parts.wav")]),
             ("to OGG, one thread: one encoder as the audio arrives (no scout or pieces) and the live decode check (up to 1,088 packets)",
              [MEDRENDER, *common, "--quality", str(QUALITY), "--threads", "1", "-o", os.path.join(tmp, "parts-one.ogg")]),
             ("to OGG, every core: the audio handed to the pieces and not yet encoded (up to 1.5 MiB, in 16 bits), an encoder a core",
              [MEDRENDER, *common, "--quality", str(QUALITY), "-o", os.path.join(tmp, "parts.ogg")])]
    lines += ["", f"| where a {MINUTES}-min render's memory goes | peak RSS (MiB) | the part added (MiB) |", "| --- | --- | --- |"]
    previous = None
    for name, cmd in steps:
        rss = peak_rss(cmd)
        lines.append(f"| {name} | {rss:.1f} | {'' if previous is None else f'{rss - previous:+.1f}'} |")
        previous = rss
    loads.append(os.getloadavg()[0])
    return rows, lines, loads


def cpu_pairs(a, b, count):
    """Alternates a and b `count` times; the a/b ratios of their processor (user + system) times."""
    ratios, ta, tb = [], [], []
    for i in range(count):
        if i % 2 == 0:
            x, y = processor_seconds(a)[1], processor_seconds(b)[1]
        else:
            y, x = processor_seconds(b)[1], processor_seconds(a)[1]
        ta.append(x)
        tb.append(y)
        ratios.append(x / y)
    return ratios, ta, tb


def processor_rows(tmp, common, mix):
    """What a library build pays per file: a render's processor time (user + system) on one thread
    (`--threads 1`, a build's share) against the floor encoding or writing the same mix."""
    rows = []
    one = [MEDRENDER, *common, "--threads", "1"]
    r, a, b = cpu_pairs(one + ["--quality", str(QUALITY), "-o", os.path.join(tmp, "cpu.ogg")],
                        [FLOOR, mix, os.path.join(tmp, "cpu-floor.ogg"), str(QUALITY)], FLOOR_PAIRS)
    rows.append(("15-min OGG q5, `--threads 1`, processor time: medrender / the C floor (libvorbis alone)", r, a, b, "≤ 1.15"))
    r, a, b = cpu_pairs(one + ["-o", os.path.join(tmp, "cpu.wav")], [WAV_FLOOR, mix, os.path.join(tmp, "cpu-floor.wav")], FLOOR_PAIRS)
    rows.append(("15-min WAV 16-bit, `--threads 1`, processor time: medrender / libsndfile writing the same mix", r, a, b, "≤ 1.15"))
    # A guided session with its speech cached (a first render fills the cache), against its own mix.
    guided = ["--preset", GUIDED, "--minutes", str(MINUTES), "--rate", str(RATE)]
    guided_mix = os.path.join(tmp, "guided-mix.wav")
    run([MEDRENDER, *guided, "--bits", "32f", "-o", guided_mix])
    r, a, b = cpu_pairs([MEDRENDER, *guided, "--threads", "1", "--quality", str(QUALITY), "-o", os.path.join(tmp, "cpu-guided.ogg")],
                        [FLOOR, guided_mix, os.path.join(tmp, "cpu-guided-floor.ogg"), str(QUALITY)], PAIRS)
    rows.append((f"15-min `{GUIDED}` OGG q5, speech cached, `--threads 1`, processor time: medrender / the C floor", r, a, b, "≤ 1.15"))
    return rows


PROCESSOR_HEADING = "## Processor time of one render on one thread"


def processor_only():
    """`--processor`: the processor-time rows alone, written into BENCHMARKS.md under their own
    heading (`make bench` puts them in the first table too)."""
    with tempfile.TemporaryDirectory(prefix="medrender-bench-") as tmp:
        common = ["--preset", PRESET, "--minutes", str(MINUTES), "--rate", str(RATE)]
        mix = os.path.join(tmp, "mix.wav")
        run([MEDRENDER, *common, "--bits", "32f", "-o", mix])
        build_floor()
        rows = processor_rows(tmp, common, mix)
    lines = [PROCESSOR_HEADING, "",
             f"Measured by `python3 scripts/bench.py --processor` ({FLOOR_PAIRS} alternated pairs, {PAIRS} for the guided session): "
             "user + system seconds of each process, from the kernel's accounting. What a library build pays per file "
             "(`build -j N` gives each render one thread).", "",
             "| comparison | ratio min / median / max | medrender s (median) | other s (median) | target |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {name} | {summary(r)} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | {target} |" for name, r, a, b, target in rows]
    write_section(PROCESSOR_HEADING, lines + [""])


def pieced_only():
    """`--pieced`: the pieced OGG rows alone, printed (BENCHMARKS.md is left as it is)."""
    with tempfile.TemporaryDirectory(prefix="medrender-bench-") as tmp:
        common = ["--preset", PRESET, "--minutes", str(MINUTES), "--rate", str(RATE)]
        mix = os.path.join(tmp, "mix.wav")
        run([MEDRENDER, *common, "--bits", "32f", "-o", mix])
        build_floor()
        rows, lines, loads = pieced_rows(tmp, common, mix)
    print("| comparison | ratio min / median / max | medrender s (median) | other s (median) | target |")
    print("| --- | --- | --- | --- | --- |")
    for name, r, a, b, target in rows:
        print(f"| {name} | {summary(r)} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | {target} |")
    print("\n".join(lines))
    print("\nOne-minute load averages while measuring: " + ", ".join(f"{x:.2f}" for x in loads) + ".")


DECODED_HEADING = "## The decode check: the share of packets decoded"


def decoded_only():
    """`--decoded`: every stock preset's 15-min OGG q5 at 48 kHz on one thread, and the share of its
    packets the decode check decoded (the report's `decodedPacketShare`): the packets that can hold
    the peaks, the packets sampled to weigh the codec's loudness shift, and the two before each run
    that lead the decoder in. Written into BENCHMARKS.md under its own heading."""
    presets = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "Presets")) if f.endswith(".yaml"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="medrender-bench-") as tmp:
        for preset in presets:
            out = subprocess.run([MEDRENDER, "--preset", preset, "--minutes", str(MINUTES), "--rate", str(RATE), "--threads", "1",
                                  "--quality", str(QUALITY), "--json", "-o", os.path.join(tmp, "d.ogg")],
                                 cwd=ROOT, capture_output=True, text=True, check=True).stdout
            rows.append((preset, json.loads(out)["decodedPacketShare"]))
            print(f"{preset}: {rows[-1][1] * 100:.1f} %", flush=True)
    shares = [share for _, share in rows]
    lines = [DECODED_HEADING, "",
             f"Measured by `python3 scripts/bench.py --decoded`: each stock preset, {MINUTES} min, {RATE} Hz stereo, OGG q{QUALITY}, "
             "`--threads 1`; the share of the stream's packets its check decoded (the report's `decodedPacketShare`): "
             "the packets that can hold its peaks, a run of 8 packets in every 140 or so to weigh what the codec does "
             f"to the loudness, and the two packets before each run. Median {statistics.median(shares) * 100:.1f} %, "
             f"from {min(shares) * 100:.1f} to {max(shares) * 100:.1f} %.", "",
             "| preset | packets decoded |", "| --- | --- |"]
    lines += [f"| `{preset}` | {share * 100:.1f} % |" for preset, share in rows]
    write_section(DECODED_HEADING, lines + [""])


BUILD_HEADING = "## A library build against the floor encoding every mix"
BUILD_PAIRS = int(os.environ.get("BENCH_BUILD_PAIRS", "4"))


def build_only():
    """`--build`: `medrender build -j 2` of the stock library (5 min, OGG q4, speech warm from a
    first build) against the floor encoding each of its 24 mixes one after the other, in
    processor time, alternated (floor, build, build, floor, ...) so that drift in the machine
    cancels, and the build's wall time. Written into BENCHMARKS.md under its own heading."""
    minutes, quality = 5, 4
    presets = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "Presets")) if f.endswith(".yaml"))
    build_floor()
    with tempfile.TemporaryDirectory(prefix="medrender-bench-") as tmp:
        build = [MEDRENDER, "build", "-o", os.path.join(tmp, "lib"), "--minutes", str(minutes), "--format", "ogg",
                 "--quality", str(quality), "-j", "2"]
        run(build)  # fills the speech cache
        mixes = []
        for preset in presets:
            mixes.append(os.path.join(tmp, f"{preset}.wav"))
            run([MEDRENDER, "--preset", preset, "--minutes", str(minutes), "--bits", "32f", "-o", mixes[-1]])

        def floor():
            return sum(processor_seconds([FLOOR, mix, os.path.join(tmp, "floor.ogg"), str(quality)])[1] for mix in mixes)

        def library():
            shutil.rmtree(os.path.join(tmp, "lib"))
            return processor_seconds(build)

        floors, builds = [], []
        for i in range(BUILD_PAIRS):
            for side in ("floor", "build") if i % 2 == 0 else ("build", "floor"):
                if side == "floor":
                    floors.append(floor())
                else:
                    builds.append(library())
    ratios = [cpu / f for (_, cpu), f in zip(builds, floors)]
    lines = [BUILD_HEADING, "",
             f"Measured by `python3 scripts/bench.py --build`: `medrender build -o DIR --minutes {minutes} --format ogg "
             f"--quality {quality} -j 2` of the stock library ({len(presets)} OGGs at 48 kHz stereo, speech cached by a first build), "
             f"against the C floor encoding each preset's mix (rendered to 32-bit float first) one after the other, "
             f"in processor time (user + system), {BUILD_PAIRS} alternated pairs (floor, build, build, floor, ...).", "",
             "| pair | build wall s | build processor s | the floor's processor s | build / the floor |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {i + 1} | {wall:.1f} | {cpu:.1f} | {f:.1f} | {cpu / f:.2f} |" for i, ((wall, cpu), f) in enumerate(zip(builds, floors))]
    lines += ["", f"Build / the floor, min / median / max: {summary(ratios, '×')}."]
    write_section(BUILD_HEADING, lines + [""])
    print("\n".join(lines))


def main():
    if "--decoded" in sys.argv:
        return decoded_only()
    if "--build" in sys.argv:
        return build_only()
    if "--pieced" in sys.argv:
        return pieced_only()
    if "--processor" in sys.argv:
        return processor_only()
    with tempfile.TemporaryDirectory(prefix="medrender-bench-") as tmp:
        common = ["--preset", PRESET, "--minutes", str(MINUTES), "--rate", str(RATE)]
        ogg = [MEDRENDER, *common, "--quality", str(QUALITY), "-o", os.path.join(tmp, "m.ogg")]
        wav = [MEDRENDER, *common, "-o", os.path.join(tmp, "m.wav")]
        mix = os.path.join(tmp, "mix.wav")
        run([MEDRENDER, *common, "--bits", "32f", "-o", mix])
        build_floor()
        floor = [FLOOR, mix, os.path.join(tmp, "floor.ogg"), str(QUALITY)]
        ff_ogg = ffmpeg_graph(tmp, os.path.join(tmp, "ff.ogg"), ["-c:a", "libvorbis", "-q:a", str(QUALITY)])
        ff_wav = ffmpeg_graph(tmp, os.path.join(tmp, "ff.wav"), ["-c:a", "pcm_s16le"])

        rows = []
        r, a, b = pairs(ogg, ff_ogg)
        rows.append(("15-min OGG q5: medrender / ffmpeg graph", r, a, b, "< 1"))
        r, a, b = pairs(wav, ff_wav)
        rows.append(("15-min WAV 16-bit: medrender / ffmpeg graph", r, a, b, "≤ 1.0"))
        memory = [(m, peak_memory(m, os.path.join(tmp, f"mem{m}.wav"))) for m in (5, 60, 180)]
        # The OGG against the floor is the pieced rows' first.
        pieced, pieced_memory, loads = pieced_rows(tmp, common, mix)
        floor_ratios = pieced[0][1]
        rows = pieced + processor_rows(tmp, common, mix) + rows

    cpu = subprocess.run(["sh", "-c", "nproc; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.split("\n")
    lines = ["# Benchmarks", "",
             f"Measured by `make bench` (`python3 scripts/bench.py`, {PAIRS} alternated pairs per row, {FLOOR_PAIRS} for the floor) on "
             f"{cpu[0].strip()} cores ({cpu[1].strip()}), release build. Session: `{PRESET}`, {MINUTES} min, "
             f"{RATE} Hz stereo, with loudness normalization and the true-peak limiter on.", "",
             "| comparison | ratio min / median / max | medrender s (median) | other s (median) | target |",
             "| --- | --- | --- | --- | --- |"]
    for name, r, a, b, target in rows:
        lines.append(f"| {name} | {summary(r)} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | {target} |")
    lines += ["", "Each pair's ratio against the floor, in the order run: "
              + ", ".join(f"{x:.3f}" for x in floor_ratios) + "."]
    lines += ["", "| session length | peak memory (MiB) |", "| --- | --- |"]
    lines += [f"| {m} min | {mem:.1f} |" for m, mem in memory]
    growth = memory[2][1] / memory[0][1] - 1
    lines += ["", f"180 min uses {growth * 100:.1f} % more memory than 5 min (target: within 10 %, under 64 MiB).", ""]
    lines += pieced_memory + ["", "One-minute load averages while the OGG rows ran: " + ", ".join(f"{x:.2f}" for x in loads)
                              + " (figures taken at a load over 2 are not representative).", ""]
    text = "\n".join(lines)
    open(os.path.join(ROOT, "BENCHMARKS.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
