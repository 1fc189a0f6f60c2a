#!/usr/bin/env python3
"""Seeks in an Ogg Vorbis file with libvorbisfile (the reference decoder library, through ctypes)
and checks each seek against a decode from the start: sample-accurate seeking, as players built on
libvorbisfile do it.

Usage: scripts/vorbisfile-seek.py FILE [STEP_SECONDS [FRAME,FRAME…]]
Seeks every STEP_SECONDS (default 5), at a frame after and 777 frames after, and at each FRAME
given and the frame after it (a pieced file's splices, say). Prints one JSON object: the length in frames libvorbisfile reports, the rate and channels, the
number of seeks, and each seek whose audio differs from the decode at the same frame (none when
seeking is exact). Exits 0 when it could read the file, 1 otherwise.
"""
import ctypes
import json
import sys

vf = ctypes.CDLL("libvorbisfile.so.3")
vf.ov_pcm_total.restype = ctypes.c_int64
vf.ov_pcm_tell.restype = ctypes.c_int64
vf.ov_read.restype = ctypes.c_long
vf.ov_pcm_seek.argtypes = [ctypes.c_void_p, ctypes.c_int64]
vf.ov_pcm_total.argtypes = [ctypes.c_void_p, ctypes.c_int]
vf.ov_pcm_tell.argtypes = [ctypes.c_void_p]
vf.ov_info.restype = ctypes.POINTER(ctypes.c_int * 4)  # version, channels, rate (long): read below


class VorbisInfo(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("channels", ctypes.c_int), ("rate", ctypes.c_long)]


vf.ov_info.restype = ctypes.POINTER(VorbisInfo)


def open_file(path):
    handle = ctypes.create_string_buffer(8192)  # OggVorbis_File is about 1 KiB
    if vf.ov_fopen(path.encode(), handle) != 0:
        sys.exit(f"libvorbisfile cannot open {path}")
    return handle


def read(handle, frames, channels):
    """Up to `frames` frames of 16-bit samples from where the handle is."""
    out = bytearray()
    want = frames * channels * 2
    buf = ctypes.create_string_buffer(65536)
    section = ctypes.c_int(0)
    while len(out) < want:
        n = vf.ov_read(handle, buf, min(65536, want - len(out)), 0, 2, 1, ctypes.byref(section))
        if n <= 0:
            break
        out += buf.raw[:n]
    return bytes(out)


def main():
    path = sys.argv[1]
    step = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    extra = [int(f) for f in sys.argv[3].split(",") if f] if len(sys.argv) > 3 else []
    handle = open_file(path)
    info = vf.ov_info(handle, -1).contents
    channels, rate = info.channels, info.rate
    total = vf.ov_pcm_total(handle, -1)
    whole = read(handle, total, channels)
    frame_bytes = channels * 2
    length = 4096
    seeks, wrong = 0, []
    position = 0
    points = []
    while position < total - length:
        points += [position, position + 1, position + 777]
        position += int(step * rate)
    for frame in extra:
        points += [frame, frame + 1]
    for point in points:
        if not 0 <= point < total - length:
            continue
        if vf.ov_pcm_seek(handle, point) != 0:
            wrong.append({"frame": point, "error": "ov_pcm_seek failed"})
            continue
        seeks += 1
        got = read(handle, length, channels)
        expected = whole[point * frame_bytes:(point + length) * frame_bytes]
        if got != expected:
            first = next(i for i in range(min(len(got), len(expected))) if got[i] != expected[i]) if got and expected else 0
            wrong.append({"frame": point, "firstDifferentFrame": point + first // frame_bytes})
    print(json.dumps({"frames": total, "decodedFrames": len(whole) // frame_bytes, "rate": rate, "channels": channels,
                      "seeks": seeks, "wrong": wrong}))


main()
