#!/usr/bin/env python3
"""Synthesis and clean-up for the medrender sound assets.

Called by make-sounds.sh.  Every sub-command writes raw little-endian
float32 samples (interleaved when stereo) that are then encoded to Ogg Vorbis.

    synth.py rain  OUT.f32          30 s stereo rain ambience, 48 kHz
    synth.py ocean OUT.f32          34 s stereo surf ambience, 48 kHz
    synth.py bell  OUT.f32          7 s mono struck bell, 48 kHz
    synth.py voice IN.f32 OUT.f32   trim/pad/fade/level a mono 48 kHz voice clip

All randomness comes from fixed seeds, so the output is the same on every run.
"""

import sys

import numpy as np

SR = 48000
PEAK_DBFS = -3.0  # leaves room for Vorbis overshoot; decoded files stay below -1 dBFS


# --------------------------------------------------------------------------
# helpers

def db(x):
    return 10.0 ** (x / 20.0)


def shaped_noise(rng, n, shape):
    """White Gaussian noise with its magnitude spectrum multiplied by shape(f).

    The filtering is done in the frequency domain (zero phase, circular), so
    the result wraps around seamlessly at the ends.
    """
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1.0 / SR)
    f[0] = f[1]  # avoid division by zero in 1/f shapes; DC is removed below
    spec *= shape(f)
    spec[0] = 0.0
    x = np.fft.irfft(spec, n)
    return x / np.sqrt(np.mean(x * x))


def hp(f, fc, order=2):
    r = (f / fc) ** order
    return r / np.sqrt(1.0 + r * r)


def lp(f, fc, order=2):
    return 1.0 / np.sqrt(1.0 + (f / fc) ** (2 * order))


def circ_convolve(x, kernel):
    n = len(x)
    k = np.zeros(n)
    k[: len(kernel)] = kernel
    return np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(k), n)


def smooth_circular(x, seconds):
    """Gaussian smoothing of a periodic control signal."""
    n = len(x)
    f = np.fft.rfftfreq(n, 1.0 / SR)
    sigma_f = 1.0 / (2.0 * np.pi * seconds)
    return np.fft.irfft(np.fft.rfft(x) * np.exp(-0.5 * (f / sigma_f) ** 2), n)


def normalize_peak(x, peak_dbfs=PEAK_DBFS):
    return x * (db(peak_dbfs) / np.max(np.abs(x)))


def raised_cosine(n):
    return 0.5 - 0.5 * np.cos(np.pi * np.arange(n) / n)


def write_f32(path, x):
    """x: shape (n,) for mono or (n, channels)."""
    np.ascontiguousarray(x, dtype="<f4").tofile(path)


# --------------------------------------------------------------------------
# rain

def rain():
    rng = np.random.default_rng(20240601)
    dur = 30.0
    n = int(dur * SR)
    out = np.zeros((n, 2))

    # Drop kernels: short damped sines with a rising chirp (small drops on
    # water/leaves) and short filtered-noise ticks (drops on hard surfaces).
    kernels = []
    for i in range(24):
        if i % 3 != 2:
            f0 = np.exp(rng.uniform(np.log(1400.0), np.log(4800.0)))
            rise = rng.uniform(1.15, 1.8)
            tau = rng.uniform(0.0015, 0.005)
            t = np.arange(int(tau * 6 * SR)) / SR
            freq = f0 * (1.0 + (rise - 1.0) * (1.0 - np.exp(-t / (tau * 1.5))))
            k = np.sin(2.0 * np.pi * np.cumsum(freq) / SR) * np.exp(-t / tau)
        else:
            tau = rng.uniform(0.0006, 0.002)
            t = np.arange(int(tau * 8 * SR)) / SR
            k = rng.standard_normal(len(t)) * np.exp(-t / tau)
            k = np.convolve(k, np.ones(3) / 3.0, mode="same")  # take the edge off
        a = max(4, int(0.0003 * SR))
        k[:a] *= raised_cosine(a)
        k /= np.sqrt(np.sum(k * k))
        kernels.append(k)

    def drop_layer(rate, amp_sigma):
        count = rng.poisson(rate * dur)
        pos = rng.integers(0, n, count)
        which = rng.integers(0, len(kernels), count)
        amp = rng.lognormal(0.0, amp_sigma, count)
        pan = rng.uniform(0.0, 1.0, count)
        gains = (amp * np.cos(pan * np.pi / 2), amp * np.sin(pan * np.pi / 2))
        y = np.zeros((n, 2))
        for i, k in enumerate(kernels):
            sel = which == i
            for c in range(2):
                train = np.bincount(pos[sel], weights=gains[c][sel], minlength=n)
                y[:, c] += circ_convolve(train, k)
        return y

    patter = drop_layer(rate=900.0, amp_sigma=0.5)  # dense, distant
    near = drop_layer(rate=14.0, amp_sigma=0.4)  # sparse, closer drops

    for c in range(2):
        # Soft pink bed (independent per channel -> decorrelated L/R).
        bed = shaped_noise(rng, n, lambda f: f ** -0.5 * hp(f, 350.0) * lp(f, 6000.0))
        # Faint low rumble of rain on a roof / in the distance.
        rumble = shaped_noise(rng, n, lambda f: f ** -1.0 * hp(f, 40.0) * lp(f, 250.0))
        # Gentle, fast, small random level texture (+-~1 dB), no drift.
        wob = smooth_circular(rng.standard_normal(n), 0.25)
        wob = 1.0 + 0.12 * wob / np.max(np.abs(wob))
        patter_c = patter[:, c] / np.sqrt(np.mean(patter[:, c] ** 2))
        near_c = near[:, c] / np.sqrt(np.mean(near[:, c] ** 2))
        out[:, c] = (
            wob * (1.0 * bed + 0.75 * patter_c)
            + 0.22 * near_c
            + 0.3 * rumble
        )

    # Soften the top end of the whole mix.
    for c in range(2):
        spec = np.fft.rfft(out[:, c])
        f = np.fft.rfftfreq(n, 1.0 / SR)
        spec *= lp(f, 7500.0, 2)
        out[:, c] = np.fft.irfft(spec, n)
    return normalize_peak(out)


# --------------------------------------------------------------------------
# ocean

def ocean():
    rng = np.random.default_rng(20240602)
    periods = [8.0, 9.5, 7.0, 9.5]  # seconds, one swell each; sum = loop length
    heights = [0.85, 1.0, 0.72, 0.93]
    dur = sum(periods)
    n = int(round(dur * SR))

    # Swell envelope: slow build, peak, longer receding wash.
    env = np.zeros(n)
    start = 0
    for T, h in zip(periods, heights):
        m = int(round(T * SR))
        p = np.arange(m) / m
        pk = 0.45
        s = np.where(
            p < pk,
            0.5 - 0.5 * np.cos(np.pi * p / pk),
            ((1.0 + np.cos(np.pi * (p - pk) / (1.0 - pk))) / 2.0) ** 2,
        )
        env[start:start + m] = h * s
        start += m
    env = smooth_circular(env, 0.15)
    env = np.clip(env, 0.0, None)

    out = np.zeros((n, 2))
    for c in range(2):
        # Each channel hears the waves slightly differently in time.
        e = np.roll(env, int((0.0, 0.45)[c] * SR))
        crash = np.roll(e, int(0.6 * SR))  # the foam arrives after the swell peak
        deep = shaped_noise(rng, n, lambda f: f ** -1.0 * hp(f, 30.0) * lp(f, 220.0))
        body = shaped_noise(rng, n, lambda f: f ** -0.5 * hp(f, 120.0) * lp(f, 1400.0))
        foam = shaped_noise(rng, n, lambda f: f ** -0.5 * hp(f, 700.0) * lp(f, 4500.0))
        out[:, c] = (
            0.4 * (0.6 + 0.4 * e) * deep
            + 0.75 * (0.12 + e ** 1.3) * body
            + 0.6 * (0.03 + crash ** 2.5) * foam
        )
    return normalize_peak(out)


# --------------------------------------------------------------------------
# bell

def bell():
    rng = np.random.default_rng(20240603)
    dur = 7.0
    n = int(dur * SR)
    t = np.arange(n) / SR
    f0 = 262.0
    # ratio, amplitude, decay time (s), beat frequency (Hz)
    # The slowest mode falls 60 dB in 6.7 s: the bell rings out within its 7 s.
    partials = [
        (1.00, 1.00, 1.00, 0.7),
        (2.76, 0.55, 0.80, 1.3),
        (5.40, 0.30, 0.55, 2.1),
        (8.93, 0.15, 0.38, 2.9),
        (13.34, 0.07, 0.22, 3.7),
    ]
    x = np.zeros(n)
    for ratio, amp, tau, beat in partials:
        f = f0 * ratio
        decay = 0.75 * np.exp(-t / tau) + 0.25 * np.exp(-t / (0.2 * tau))
        # Each mode is a slightly split doublet, which gives the slow beating.
        for df, a in ((-beat / 2.0, 1.0), (beat / 2.0, 0.6)):
            ph = rng.uniform(0.0, 2.0 * np.pi)
            x += amp * a * decay * np.sin(2.0 * np.pi * (f + df) * t + ph)

    # Soft mallet contact: a few ms of low-passed noise.
    tick = np.convolve(rng.standard_normal(int(0.03 * SR)), np.hanning(24), mode="same")
    tick *= np.exp(-np.arange(len(tick)) / (0.004 * SR))
    x[: len(tick)] += 0.02 * tick / np.max(np.abs(tick)) * np.max(np.abs(x[:2000]))

    a = int(0.004 * SR)  # 4 ms attack, no click
    x[:a] *= raised_cosine(a)
    r = int(0.3 * SR)  # last 0.3 s (from under -60 dB) faded to exact zero
    x[-r:] *= raised_cosine(r)[::-1]
    x[-1] = 0.0
    return normalize_peak(x)


def gong():
    rng = np.random.default_rng(20240604)
    dur = 12.0
    n = int(dur * SR)
    t = np.arange(n) / SR
    f0 = 98.0
    # ratio, amplitude, decay constant (s, exp(-t/tau)), bloom (s), beat (Hz)
    partials = [
        (1.00, 1.00, 1.60, 0.00, 0.4),
        (1.52, 0.60, 1.30, 0.05, 0.6),
        (2.04, 0.55, 1.15, 0.10, 0.9),
        (2.51, 0.45, 1.00, 0.15, 1.1),
        (3.03, 0.35, 0.85, 0.20, 1.4),
        (3.62, 0.28, 0.70, 0.25, 1.7),
        (4.27, 0.20, 0.55, 0.30, 2.0),
        (5.10, 0.14, 0.45, 0.35, 2.4),
        (6.30, 0.09, 0.35, 0.40, 2.9),
        (7.85, 0.05, 0.25, 0.45, 3.3),
    ]
    x = np.zeros(n)
    for ratio, amp, tau, bloom, beat in partials:
        f = f0 * ratio
        # The upper modes swell in after the strike (energy passing up from the low ones).
        rise = 1.0 - np.exp(-t / bloom) if bloom > 0 else np.ones(n)
        decay = rise * np.exp(-t / tau)
        for df, a in ((-beat / 2.0, 1.0), (beat / 2.0, 0.7)):
            ph = rng.uniform(0.0, 2.0 * np.pi)
            x += amp * a * decay * np.sin(2.0 * np.pi * (f + df) * t + ph)
    # A soft felt beater: low-passed noise for a few ms.
    thud = np.convolve(rng.standard_normal(int(0.05 * SR)), np.hanning(96), mode="same")
    thud *= np.exp(-np.arange(len(thud)) / (0.008 * SR))
    x[: len(thud)] += 0.05 * thud / np.max(np.abs(thud)) * np.max(np.abs(x[:4000]))
    a = int(0.006 * SR)
    x[:a] *= raised_cosine(a)
    r = int(0.5 * SR)
    x[-r:] *= raised_cosine(r)[::-1]
    x[-1] = 0.0
    return normalize_peak(x)


def chime():
    rng = np.random.default_rng(20240605)
    dur = 6.0
    n = int(dur * SR)
    t = np.arange(n) / SR
    x = np.zeros(n)
    # Three small tubes (C6, E6, G6) struck one after another, each with a free bar's
    # inharmonic modes (ratios 1, 2.76, 5.40).
    for f0, onset, level in ((1046.5, 0.00, 1.0), (1318.5, 0.16, 0.8), (1568.0, 0.31, 0.7)):
        s = np.clip(t - onset, 0.0, None)
        on = (t >= onset).astype(float)
        for ratio, amp, tau in ((1.00, 1.00, 0.62), (2.76, 0.35, 0.22), (5.40, 0.12, 0.08)):
            ph = rng.uniform(0.0, 2.0 * np.pi)
            x += on * level * amp * np.exp(-s / tau) * np.sin(2.0 * np.pi * f0 * ratio * s + ph)
        k = int(onset * SR)
        a = int(0.002 * SR)
        x[k:k + a] *= raised_cosine(a)
    r = int(0.3 * SR)
    x[-r:] *= raised_cosine(r)[::-1]
    x[-1] = 0.0
    return normalize_peak(x)


# --------------------------------------------------------------------------
# voice clean-up

def voice(x):
    x = x.astype(np.float64)
    x -= np.mean(x)
    # Short-time RMS in 5 ms hops with a 10 ms window.
    hop, win = int(0.005 * SR), int(0.010 * SR)
    nfr = max(1, (len(x) - win) // hop + 1)
    rms = np.array([np.sqrt(np.mean(x[i * hop:i * hop + win] ** 2)) for i in range(nfr)])
    thr = np.max(rms) * db(-40.0)
    active = np.nonzero(rms > thr)[0]
    pad = int(0.020 * SR)
    a = max(0, active[0] * hop - pad)
    b = min(len(x), active[-1] * hop + win + pad)
    y = x[a:b].copy()

    # Level: speech RMS (active frames) to -20 dBFS, peaks capped.
    speech_rms = np.sqrt(np.mean(rms[active] ** 2))
    y *= db(-20.0) / speech_rms
    if np.max(np.abs(y)) > db(PEAK_DBFS):
        y = normalize_peak(y)

    f = int(0.005 * SR)  # 5 ms fades
    y[:f] *= raised_cosine(f)
    y[-f:] *= raised_cosine(f)[::-1]
    y[0] = y[-1] = 0.0
    return y


# --------------------------------------------------------------------------

def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd in ("rain", "ocean", "bell", "gong", "chime") and len(argv) == 3:
        write_f32(argv[2], {"rain": rain, "ocean": ocean, "bell": bell, "gong": gong, "chime": chime}[cmd]())
    elif cmd == "voice" and len(argv) == 4:
        write_f32(argv[3], voice(np.fromfile(argv[2], dtype="<f4")))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
