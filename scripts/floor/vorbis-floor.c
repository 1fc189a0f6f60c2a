/* The floor a medrender OGG render is measured against: libvorbis alone encoding a finished mix.
 * Reads a WAV (medrender's own 32-bit float mix) with libsndfile and encodes it with libvorbisenc
 * at a VBR quality (oggenc's -q / 10), as oggenc does: 1024 frames at a time, pages out as they come.
 * Usage: vorbis-floor IN.wav OUT.ogg QUALITY   (QUALITY as oggenc's -q, -1..10) */
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <vorbis/vorbisenc.h>

static void write_page(FILE *out, ogg_page *page) {
    if (fwrite(page->header, 1, page->header_len, out) != (size_t)page->header_len ||
        fwrite(page->body, 1, page->body_len, out) != (size_t)page->body_len) {
        perror("write");
        exit(74);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: vorbis-floor IN.wav OUT.ogg QUALITY\n");
        return 64;
    }
    SF_INFO sfinfo = {0};
    SNDFILE *in = sf_open(argv[1], SFM_READ, &sfinfo);
    if (!in) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 66;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 73;
    }
    int channels = sfinfo.channels;
    vorbis_info vi;
    vorbis_comment vc;
    vorbis_dsp_state vd;
    vorbis_block vb;
    ogg_stream_state os;
    ogg_page og;
    ogg_packet op, hc, hcode;
    vorbis_info_init(&vi);
    if (vorbis_encode_init_vbr(&vi, channels, sfinfo.samplerate, (float)(atof(argv[3]) / 10.0)) != 0) {
        fprintf(stderr, "libvorbis refused the format\n");
        return 65;
    }
    vorbis_comment_init(&vc);
    vorbis_analysis_init(&vd, &vi);
    vorbis_block_init(&vd, &vb);
    ogg_stream_init(&os, 0x6d656472);
    vorbis_analysis_headerout(&vd, &vc, &op, &hc, &hcode);
    ogg_stream_packetin(&os, &op);
    ogg_stream_packetin(&os, &hc);
    ogg_stream_packetin(&os, &hcode);
    while (ogg_stream_flush(&os, &og)) write_page(out, &og);

    enum { FRAMES = 1024 };
    float *buffer = malloc(sizeof(float) * FRAMES * channels);
    int eos = 0;
    while (!eos) {
        sf_count_t n = sf_readf_float(in, buffer, FRAMES);
        if (n <= 0) {
            vorbis_analysis_wrote(&vd, 0);
        } else {
            float **planes = vorbis_analysis_buffer(&vd, (int)n);
            for (sf_count_t i = 0; i < n; i++)
                for (int c = 0; c < channels; c++) planes[c][i] = buffer[i * channels + c];
            vorbis_analysis_wrote(&vd, (int)n);
        }
        while (vorbis_analysis_blockout(&vd, &vb) == 1) {
            vorbis_analysis(&vb, NULL);
            vorbis_bitrate_addblock(&vb);
            while (vorbis_bitrate_flushpacket(&vd, &op)) {
                ogg_stream_packetin(&os, &op);
                while (!eos && ogg_stream_pageout(&os, &og)) {
                    write_page(out, &og);
                    if (ogg_page_eos(&og)) eos = 1;
                }
            }
        }
    }
    free(buffer);
    ogg_stream_clear(&os);
    vorbis_block_clear(&vb);
    vorbis_dsp_clear(&vd);
    vorbis_comment_clear(&vc);
    vorbis_info_clear(&vi);
    sf_close(in);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 74;
    }
    return 0;
}
