// FFmpeg's libraries (libavformat, libavcodec, libavutil, libswresample, libswscale), linked as
// system libraries: M4A/AAC input and video output. Macros Swift cannot import get inline helpers here.
#pragma once
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/// AVERROR(EAGAIN), which Swift cannot import as a macro.
static inline int medrender_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_EOF.
static inline int medrender_averror_eof(void) { return AVERROR_EOF; }

// The video's writer: an audio FIFO between the mix's blocks and the encoder's frames.
#include <libavutil/audio_fifo.h>
