#!/usr/bin/env bash
# Regenerates every sound asset in Sounds/ from scratch.
#
#   bash Sounds/make-sounds.sh
#
# Ambiences and the bell are synthesized with numpy (Sounds/synth.py); the
# voice prompts are spoken by Festival with the CMU ARCTIC "slt" HTS voice.
# All synthesis uses fixed random seeds, so repeated runs give the same audio.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
VOICE="cmu_us_slt_arctic_hts"
RATE=48000
QUALITY=3        # libvorbis VBR quality (-q:a)
SPEECH_RATE=0.9  # hts_engine speed factor (<1 = slower, calmer delivery)

# ---------------------------------------------------------------- tool check
missing=0
need() { # command, Debian package
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "make-sounds.sh: '$1' not found; install it with: apt-get install $2" >&2
        missing=1
    fi
}
need "$PYTHON" python3
need sox sox
need ffmpeg ffmpeg
need text2wave festival
need festival festival
need soxi sox
if [ "$missing" = 0 ]; then
    if ! "$PYTHON" -c 'import numpy' >/dev/null 2>&1; then
        echo "make-sounds.sh: numpy is missing for $PYTHON; install it with: apt-get install python3-numpy (or: pip install numpy)" >&2
        missing=1
    fi
    encoders="$(ffmpeg -hide_banner -encoders 2>/dev/null || true)"
    if [[ "$encoders" != *libvorbis* ]]; then
        echo "make-sounds.sh: ffmpeg lacks the libvorbis encoder; install Debian's ffmpeg package" >&2
        missing=1
    fi
    fest="$(echo "(voice_$VOICE)" | festival --pipe 2>&1 || echo error)"
    if [[ "${fest,,}" == *error* ]]; then
        echo "make-sounds.sh: Festival voice $VOICE not available; install it with: apt-get install festvox-us-slt-hts" >&2
        missing=1
    fi
fi
[ "$missing" = 0 ] || exit 1

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# raw float32 (interleaved) -> Ogg Vorbis; bitexact keeps the output byte-stable
encode() { # in.f32 channels out.ogg title
    ffmpeg -nostdin -hide_banner -loglevel error -y \
        -f f32le -ar "$RATE" -ac "$2" -i "$1" \
        -map_metadata -1 -fflags +bitexact -flags:a +bitexact \
        -metadata title="$4" -metadata artist="medrender authors" \
        -metadata license="CC0-1.0" \
        -c:a libvorbis -q:a "$QUALITY" "$3.part.ogg"
    mv -f "$3.part.ogg" "$3"
}

# ---------------------------------------------------------------- synthesis
echo "synthesizing rain, ocean, bell, gong, chime ..."
"$PYTHON" "$here/synth.py" rain "$tmp/rain.f32"
"$PYTHON" "$here/synth.py" ocean "$tmp/ocean.f32"
"$PYTHON" "$here/synth.py" bell "$tmp/bell.f32"
"$PYTHON" "$here/synth.py" gong "$tmp/gong.f32"
"$PYTHON" "$here/synth.py" chime "$tmp/chime.f32"
encode "$tmp/rain.f32" 2 "$here/rain.ogg" "Rain"
encode "$tmp/ocean.f32" 2 "$here/ocean.ogg" "Ocean"
encode "$tmp/bell.f32" 1 "$here/bell.ogg" "Bell"
encode "$tmp/gong.f32" 1 "$here/gong.ogg" "Gong"
encode "$tmp/chime.f32" 1 "$here/chime.ogg" "Chime"

# ---------------------------------------------------------------- voice
speak() { # name title text
    local name="$1" title="$2" text="$3"
    echo "speaking $name.ogg: \"$text\""
    printf '%s\n' "$text" >"$tmp/$name.txt"
    text2wave -eval "(voice_$VOICE)" \
        -eval "(set! hts_engine_params (append hts_engine_params (list (list \"-r\" $SPEECH_RATE))))" \
        "$tmp/$name.txt" -o "$tmp/$name.wav"
    # DC/rumble removal and resampling to the common rate, as raw float32
    sox "$tmp/$name.wav" -t raw -e floating-point -b 32 -L -c 1 "$tmp/$name.in.f32" \
        highpass 70 rate -v "$RATE"
    # trim silence (keep 20 ms), 5 ms fades, level
    "$PYTHON" "$here/synth.py" voice "$tmp/$name.in.f32" "$tmp/$name.f32"
    encode "$tmp/$name.f32" 1 "$here/$name.ogg" "$title"
}

speak voice-intro "Welcome" \
    "Welcome. Find a comfortable position, and let your shoulders soften. When you hear the tone, breathe in."
speak voice-outro "Closing" \
    "Let your breath return to its natural rhythm. When you are ready, gently open your eyes."
speak voice-breathe-in "Breathe in" "Breathe in."
speak voice-hold "Hold" "Hold."
speak voice-breathe-out "Breathe out" "Breathe out."

echo "done:"
for f in rain ocean bell voice-intro voice-outro voice-breathe-in voice-hold voice-breathe-out; do
    printf '  %-22s %6.2f s  %s ch  %s bytes\n' "$f.ogg" \
        "$(soxi -D "$here/$f.ogg")" "$(soxi -c "$here/$f.ogg")" "$(stat -c %s "$here/$f.ogg")"
done
