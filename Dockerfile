# medrender as an image: built with Swift on Debian 12, run on debian:12-slim with the libraries the
# program links and the speech engines its guided presets speak with, as an unprivileged user,
# serving on port 8080.
#
#   make image                                   # podman (or docker) build -t medrender:latest .
#   docker run -p 127.0.0.1:8080:8080 -v $PWD/api-keys:/etc/medrender/api-keys:ro medrender:latest
#
# Beyond this machine, put TLS in front of it with a reverse proxy (README: Beyond loopback).
#
# The build stage compiles the release build with the Swift runtime linked in statically
# (--static-swift-stdlib), so the run stage needs no Swift toolchain. Given PREBUILT (a path in the
# build context to such a medrender, built on Debian 12, with its medrender-media beside it), it
# copies those instead of compiling, and then needs no Swift image (BUILD_IMAGE may be
# debian:12-slim): `make image PREBUILT=1` does so. medrender-media, which alone links FFmpeg, Cairo
# and Pango (videos, M4A/AAC sounds), is installed beside medrender, where medrender runs it from.
ARG BUILD_IMAGE=swift:6.3.1-bookworm
ARG RUN_IMAGE=debian:12-slim

FROM ${BUILD_IMAGE} AS build
ARG PREBUILT=
WORKDIR /src
COPY . .
RUN set -eu; \
    if [ -n "$PREBUILT" ]; then \
        install -m 755 "$PREBUILT" /tmp/medrender; \
        install -m 755 "$(dirname "$PREBUILT")/medrender-media" /tmp/medrender-media; \
    else \
        apt-get update; \
        apt-get install -y --no-install-recommends pkg-config libsndfile1-dev libsamplerate0-dev libvorbis-dev \
            libogg-dev libebur128-dev libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev \
            libcairo2-dev libpango1.0-dev; \
        swift build -c release --static-swift-stdlib; \
        install -m 755 .build/release/medrender /tmp/medrender; \
        install -m 755 .build/release/medrender-media /tmp/medrender-media; \
    fi; \
    share=/staging/usr/local/share; \
    install -d /staging/usr/local/bin "$share/medrender/Presets" "$share/medrender/Sounds/LICENSES" "$share/medrender/Languages" "$share/man/man1"; \
    install -m 755 /tmp/medrender /staging/usr/local/bin/medrender; \
    install -m 755 /tmp/medrender-media /staging/usr/local/bin/medrender-media; \
    install -m 644 LICENSE NOTICE "$share/medrender/"; \
    install -m 644 Presets/*.yaml "$share/medrender/Presets/"; \
    install -m 644 Sounds/*.ogg Sounds/CREDITS.yaml Sounds/README.md "$share/medrender/Sounds/"; \
    install -m 644 Sounds/LICENSES/* "$share/medrender/Sounds/LICENSES/"; \
    install -m 644 Languages/*.yml "$share/medrender/Languages/"; \
    install -m 644 man/medrender.1 "$share/man/man1/"

FROM ${RUN_IMAGE} AS runtime
# Every library the programs link beyond what each Debian base image holds (libsndfile brings FLAC,
# Opus and MP3; FFmpeg's libraries, Cairo, Pango, GLib and HarfBuzz, medrender-media's, draw and
# encode videos and decode M4A/AAC). scripts/check-needed checks this list against both programs'
# NEEDED entries (make test), and
# scripts/test-image installs it into a fresh Debian root and runs the program there.
ARG RUNTIME_PACKAGES="libsndfile1 libsamplerate0 libvorbis0a libvorbisenc2 libogg0 libebur128-1 libavformat59 libavcodec59 libavutil57 libswresample4 libswscale6 libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libglib2.0-0 libharfbuzz0b libstdc++6 libgcc-s1"
# The speech engines the library's guided presets speak with: festival and its HTS voice for
# English, espeak-ng for the other languages (box-breath-de). Add flite to offer it too.
ARG SPEECH_PACKAGES="festival festvox-us-slt-hts espeak-ng"
RUN apt-get update \
 && apt-get install -y --no-install-recommends $RUNTIME_PACKAGES $SPEECH_PACKAGES \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 medrender \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/cache/medrender --create-home --shell /usr/sbin/nologin medrender
COPY --from=build /staging/ /
USER 10001:10001
WORKDIR /var/cache/medrender
EXPOSE 8080
# The keys (one per line, or sha256:HEX of one) are mounted at /etc/medrender/api-keys: bound beyond
# loopback, the server asks for keys (or --allow-anonymous). /healthz asks none.
# A request may ask for 180 minutes at most; the largest such render (a WAV at 192 kHz, stereo,
# 32-bit float: 180 × 60 × 192000 × 2 × 4 bytes, 15821 MiB) fits the cache's 16384 MiB, which
# scripts/check-deploy checks. The disk under the cache needs that much again for each render
# running (--max-renders, default the number of cores).
ENTRYPOINT ["medrender"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--api-keys", "/etc/medrender/api-keys", "--cache-dir", "/var/cache/medrender/renders", "--max-minutes", "180", "--cache-size", "16384"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
