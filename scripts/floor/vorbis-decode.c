/* What a decode of an OGG costs: libvorbisfile reads the whole stream into floats, as the render's
 * live decode check does with libvorbis, and nothing is written. Part of the bound `make bench`
 * puts on an OGG render on two cores (scripts/bench.py, `bound_row`).
 * Usage: vorbis-decode IN.ogg   (prints the frames decoded) */
#include <stdio.h>
#include <vorbis/vorbisfile.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: vorbis-decode IN.ogg\n");
        return 64;
    }
    OggVorbis_File file;
    if (ov_fopen(argv[1], &file) != 0) {
        fprintf(stderr, "%s: not an Ogg Vorbis file libvorbisfile can open\n", argv[1]);
        return 66;
    }
    float **pcm;
    int section;
    long n, frames = 0;
    while ((n = ov_read_float(&file, &pcm, 4096, &section)) > 0) frames += n;
    ov_clear(&file);
    if (n < 0) {
        fprintf(stderr, "%s: the stream broke off after %ld frames\n", argv[1], frames);
        return 65;
    }
    printf("%ld\n", frames);
    return 0;
}
