#!/usr/bin/env python3
"""Measures the voices a guided script can speak with, and writes the figures into BENCHMARKS.md
under "## Voices".

For each engine installed (festival, espeak-ng, flite, Piper with `en_US-joe-medium`) and each pace
(90, 120 and 160 words a minute), ten meditation sentences are rendered as a guided script
(`minutes: fit`, the voice layer alone, 16 kHz mono, a cold speech cache) with their cue sheet;
then, line by line over its cue-sheet frames (plus 0.3 s):
- the pace: the line's words over its spoken length;
- pocketsphinx's word error rate against the script's words (substitutions, deletions and
  insertions over the words, summed over the lines), as the recognizer of IntelligibilityTests hears
  them;
- DNSMOS P.808 (`speechmos`, when installed in the virtual environment) of each line.
And the time Piper takes through medrender for a 40-line script (cold cache: every line at its
pace, some spoken twice) against `piper` itself speaking the same 40 lines once at the first
scale. MEDRENDER names the binary (default: the release build).

`bench-voice.py --wer PACE VOICE...` prints only each voice's word error rate at PACE, as JSON
(`{"festival": 0.47, ...}`): VoiceTests reads it to hold Piper at the default pace to festival's.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import ROOT, write_section  # noqa: E402

MEDRENDER = os.environ.get("MEDRENDER", os.path.join(ROOT, ".build", "release", "medrender"))
SENTENCES = [
    "Let your shoulders drop and your jaw soften.",
    "Breathe in slowly through your nose, and feel your chest rise.",
    "Notice the weight of your body resting on the floor.",
    "With each breath out, let a little more tension go.",
    "There is nothing you need to do right now.",
    "Bring your attention to the soles of your feet.",
    "If your mind wanders, gently come back to the breath.",
    "Feel the cool air entering, and the warm air leaving.",
    "Let the sounds around you come and go.",
    "When you are ready, slowly open your eyes.",
]
VOICES = [("festival", "festival"), ("espeak-ng", "espeak-ng"), ("flite", "flite"), ("piper", "piper:en_US-joe-medium")]
PACES = [90, 120, 160]


def words(text):
    return [w for w in re.sub(r"[^a-z' ]", " ", text.lower()).split() if w]


def errors(reference, heard):
    """Levenshtein distance between two word lists."""
    row = list(range(len(heard) + 1))
    for i, r in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(heard, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1]


def render(voice, pace, lines, tmp, env):
    preset = os.path.join(tmp, "voice.yaml")
    with open(preset, "w") as f:
        f.write(f"name: voices\nminutes: fit\npattern: 4-0-6-0\nsettle: 5\nclosing: 5\nguide:\n  voice: {voice}\n  pace: {pace}\n  lines:\n")
        for line in lines:
            f.write(f"    - say: {json.dumps(line)}\n      pause: 1\n")
    out, cues = os.path.join(tmp, "voice.wav"), os.path.join(tmp, "cues.json")
    subprocess.run([MEDRENDER, "--preset", preset, "--rate", "16000", "--channels", "1", "--bits", "16", "--layers", "voice",
                    "-o", out, "--cues", cues], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    events = [e for e in json.load(open(cues))["events"] if e["type"] == "voice" and e.get("text")]
    with wave.open(out) as w:
        data = w.readframes(w.getnframes())
    return events, data


def measure(voice, pace, env, mos):
    from pocketsphinx import Decoder
    decoder = Decoder(samprate=16000, logfn="/dev/null")
    with tempfile.TemporaryDirectory(prefix="medrender-bench-voice-") as tmp:
        events, data = render(voice, pace, SENTENCES, tmp, dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache")))
    paces, wrong, total, scores = [], 0, 0, []
    for e in events:
        clip = data[2 * e["frame"]:2 * (e["endFrame"] + 4800)]
        decoder.start_utt()
        decoder.process_raw(clip, full_utt=True)
        decoder.end_utt()
        heard = [re.sub(r"\(\d+\)$", "", s.word) for s in decoder.seg() if not s.word.startswith(("<", "["))]
        reference = words(e["text"])
        wrong += errors(reference, heard)
        total += len(reference)
        paces.append(len(e["text"].split()) * 60 / ((e["endFrame"] - e["frame"]) / 16000))
        if mos:
            scores.append(mos(data[2 * e["frame"]:2 * e["endFrame"]]))
    return paces, wrong / total, (sum(scores) / len(scores) if scores else None)


def dnsmos():
    try:
        import numpy
        from speechmos import dnsmos as model
    except ImportError:
        return None
    return lambda raw: model.run(numpy.frombuffer(raw, dtype=numpy.int16).astype(numpy.float32) / 32768, sr=16000)["p808_mos"]


def piper_times(env):
    model = subprocess.run([MEDRENDER, "voices"], capture_output=True, text=True, env=env).stdout
    found = re.search(r"en_US-joe-medium: .*\((?:[^:]*: )?(/[^)]*)\)", model)
    lines = [f"{s} This is line {n + 1}." for n in range(4) for s in SENTENCES]
    with tempfile.TemporaryDirectory(prefix="medrender-bench-piper-") as tmp:
        start = time.perf_counter()
        render("piper:en_US-joe-medium", 120, lines, tmp, dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache")))
        ours = time.perf_counter() - start
        onnx = next((os.path.join(r, f) for r, _, fs in os.walk(found.group(1) if found else "/nonexistent") for f in fs
                     if f == "en_US-joe-medium.onnx"), None)
        if onnx is None:
            return ours, None
        text = os.path.join(tmp, "lines.txt")
        open(text, "w").write("\n".join(lines) + "\n")
        start = time.perf_counter()
        subprocess.run(["piper", "-m", onnx, "-c", onnx + ".json", "--noise-scale", "0", "--noise-w-scale", "0",
                        "--length-scale", "2.43", "-i", text, "-d", os.path.join(tmp, "own")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return ours, time.perf_counter() - start


def main():
    env = dict(os.environ)
    mos = dnsmos()
    rows = []
    for engine, voice in VOICES:
        program = {"festival": "text2wave", "piper": "piper"}.get(engine, engine)
        if not shutil.which(program):
            rows.append(f"| {engine} | not installed | | | |")
            continue
        for pace in PACES:
            paces, wer, score = measure(voice, pace, env, mos)
            rows.append(f"| {engine} | {pace} | {min(paces):.0f}–{max(paces):.0f} (mean {sum(paces) / len(paces):.0f}) | "
                        f"{100 * wer:.0f} % | {'%.2f' % score if score is not None else 'not measured'} |")
    lines = ["## Voices", "",
             "Measured by `make bench` (`python3 scripts/bench-voice.py`): ten meditation sentences spoken as a guided script "
             "(`minutes: fit`, voice layer only, 16 kHz mono, cold speech cache), each line measured over its cue-sheet frames. "
             "Pace: words over the line's spoken length; WER: pocketsphinx (the recognizer of `IntelligibilityTests`) against "
             "the script's words, over all ten lines; DNSMOS P.808: `speechmos`, when installed.", "",
             "| voice | asked (words/min) | measured per line | pocketsphinx WER | DNSMOS P.808 |", "|---|---|---|---|---|"] + rows
    if shutil.which("piper"):
        ours, own = piper_times(env)
        lines += ["", f"A 40-line script spoken by Piper at 120 words a minute through medrender, cold cache: {ours:.1f} s of wall "
                  "time (the render included; every line measured, those more than 4 % off spoken again, one process a scale step)"
                  + (f"; `piper` itself speaking the same 40 lines once, at the first scale: {own:.1f} s ({ours / own:.2f}×)." if own else "."), ""]
    write_section("## Voices", lines)


def word_error_rates(pace, voices):
    """Each voice's pocketsphinx word error rate at `pace`, without DNSMOS."""
    return {voice: measure(voice, pace, dict(os.environ), None)[1] for voice in voices}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--wer"]:
        print(json.dumps(word_error_rates(int(sys.argv[2]), sys.argv[3:])))
    else:
        main()
