#!/usr/bin/env python3
"""Measures `medrender video` and writes the figures into BENCHMARKS.md under "## Video"
(replacing that section, or adding it).

- a 15-minute 720p MP4 at 30 fps of box-breath, against the floor: the `ffmpeg` program encoding
  the same picture, read as raw video from a file, with the same codec settings (libx264
  -preset veryfast -crf 23 -threads 1, AAC at 160 kb/s, +faststart) and the same audio (the
  session rendered to WAV). The raw file holds one 16-s breath cycle of the video's own frames
  (a 15-minute raw file would be 37 GB), read over and over for 15 minutes: the same picture
  to the encoder, frame for frame, but for the progress ring and the section's name;
- the same video against the audio render alone (a 15-minute OGG);
- peak memory of a 2-minute and a 15-minute video: flat in the session's length.

Pairs alternate (medrender, then the other), PAIRS of them; the machine's load average is noted,
as others may share it. MEDRENDER names the binary (default: the release build).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
PAIRS = int(os.environ.get("PAIRS", "3"))
MINUTES = os.environ.get("MINUTES", "15")
SESSION = ["--preset", "box-breath", "--minutes", MINUTES]
WIDTH, HEIGHT, FPS = 1280, 720, 30
# The video's encoder settings, as Sources/MedrenderMedia/VideoFileWriter.swift sets them.
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-threads", "1", "-g", str(FPS * 10), "-pix_fmt", "yuv420p"]
AAC = ["-c:a", "aac", "-b:a", "160k"]


def timed(command):
    """Wall seconds and peak RSS (MiB) of a command, through GNU time."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{result.stderr[-2000:]}")
    rss = int(result.stderr.strip().splitlines()[-1]) / 1024
    return elapsed, rss


def load():
    return os.getloadavg()[0]


def main():
    if not os.path.exists("/usr/bin/time"):
        raise SystemExit("GNU time is needed: apt-get install time")
    work = tempfile.mkdtemp(prefix="medrender-bench-video-")
    video = os.path.join(work, "session.mp4")
    wav = os.path.join(work, "session.wav")
    raw = os.path.join(work, "cycle.yuv")
    floor = os.path.join(work, "floor.mp4")
    ogg = os.path.join(work, "session.ogg")
    # The floor's audio: the session rendered to WAV.
    subprocess.run([MEDRENDER] + SESSION + ["-o", wav], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    loads = [load()]
    ours, theirs, audio, ratios = [], [], [], []
    rss15 = 0.0
    for pair in range(PAIRS):
        t, rss = timed([MEDRENDER, "video"] + SESSION + ["-o", video])
        ours.append(t)
        rss15 = max(rss15, rss)
        if pair == 0:
            # The floor's picture: one breath cycle of this video's own frames, as raw 4:2:0.
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(min(60.0, float(MINUTES) * 60 / 2)), "-t", "16", "-i", video, "-f", "rawvideo", "-pix_fmt", "yuv420p", raw],
                           check=True)
        f, _ = timed(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS),
                      "-stream_loop", "-1", "-i", raw, "-i", wav, "-t", str(float(MINUTES) * 60)] + X264 + AAC + ["-movflags", "+faststart", "-shortest", floor])
        theirs.append(f)
        ratios.append(t / f)
        a, _ = timed([MEDRENDER] + SESSION + ["-o", ogg])
        audio.append(a)
        loads.append(load())
    _, rss2 = timed([MEDRENDER, "video", "--preset", "box-breath", "--minutes", "2", "-o", video])
    for path in (video, wav, raw, floor, ogg):
        if os.path.exists(path):
            os.remove(path)
    os.rmdir(work)

    med = statistics.median
    against_audio = [o / a for o, a in zip(ours, audio)]
    section = f"""## Video

Measured by `make bench` (`python3 scripts/bench-video.py`, {PAIRS} alternated pairs) on {os.cpu_count()} cores, release build: \
`medrender video --preset box-breath --minutes {MINUTES}` (1280×720, 30 fps, H.264 + AAC in MP4). The floor is the `ffmpeg` program \
encoding one breath cycle of the same video's frames, read as raw video from a file over and over for the session's length, with the same \
settings (libx264 veryfast, CRF 23, one thread; AAC 160 kb/s; faststart) and the session's audio from a WAV render. \
Load average (1 min) before the first run: {loads[0]:.1f}; over the runs (its own load included): {min(loads):.1f} to {max(loads):.1f}.

| comparison | ratio min / median / max | medrender s (median) | other s (median) | target |
| --- | --- | --- | --- | --- |
| {MINUTES}-min 720p MP4: medrender / ffmpeg from raw frames (floor) | {min(ratios):.2f} / {med(ratios):.2f} / {max(ratios):.2f} | {med(ours):.1f} | {med(theirs):.1f} | ≤ 1.2 |
| {MINUTES}-min 720p MP4 / the {MINUTES}-min OGG audio render alone | {min(against_audio):.2f} / {med(against_audio):.2f} / {max(against_audio):.2f} | {med(ours):.1f} | {med(audio):.1f} | (cost of the picture) |

| video length | peak memory (MiB) |
| --- | --- |
| 2 min | {rss2:.1f} |
| {MINUTES} min | {rss15:.1f} |
"""
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path, encoding="utf-8").read()
    if "## Video\n" in text:
        text = re.sub(r"## Video\n.*?(?=\n## |\Z)", section.rstrip("\n") + "\n", text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w", encoding="utf-8").write(text)
    print(section)


if __name__ == "__main__":
    sys.exit(main())
