/* The floor a medrender WAV render is measured against: libsndfile alone writing a finished mix.
 * Reads a WAV (medrender's own 32-bit float mix) and writes it as a 16-bit WAV, 1024 frames at a
 * time (libsndfile converts the floats, without dither).
 * Usage: wav-floor IN.wav OUT.wav */
#include <sndfile.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: wav-floor IN.wav OUT.wav\n");
        return 64;
    }
    SF_INFO info = {0};
    SNDFILE *in = sf_open(argv[1], SFM_READ, &info);
    if (!in) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 66;
    }
    SF_INFO outInfo = {0};
    outInfo.samplerate = info.samplerate;
    outInfo.channels = info.channels;
    outInfo.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    SNDFILE *out = sf_open(argv[2], SFM_WRITE, &outInfo);
    if (!out) {
        fprintf(stderr, "%s: %s\n", argv[2], sf_strerror(NULL));
        return 73;
    }
    sf_command(out, SFC_SET_CLIPPING, NULL, SF_TRUE);
    float buffer[1024 * 8];
    sf_count_t got;
    while ((got = sf_readf_float(in, buffer, 1024)) > 0) {
        if (sf_writef_float(out, buffer, got) != got) {
            fprintf(stderr, "%s: %s\n", argv[2], sf_strerror(out));
            return 74;
        }
    }
    sf_close(in);
    return sf_close(out) == 0 ? 0 : 74;
}
