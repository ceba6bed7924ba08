# chirper-play: `make run` and `make test` are the two commands; each installs what it needs first.
SHELL := /bin/bash
SWIFT ?= swift
RUN_PACKAGES := libmpg123-dev libpulse-dev libedit-dev libsonic-dev libfftw3-dev libchafa-dev libpng-dev libsqlite3-dev \
	libsystemd-dev pkg-config
TEST_PACKAGES := $(RUN_PACKAGES) pulseaudio pulseaudio-utils mpg123 lame sox twolame libsixel-bin \
	pipewire pipewire-pulse wireplumber dbus-daemon dbus-bin playerctl man-db python3
BENCH_PACKAGES := $(TEST_PACKAGES) lame sox libsox-fmt-mp3 time python3-numpy
ARGS ?=

.PHONY: run test build format lint bench fuzz demo-assets deps-run deps-test deps-bench clean install uninstall

## Build (release) and start chirper-play; with no API key it uses the offline demo catalog.
run: deps-run
	$(SWIFT) build -c release --static-swift-stdlib --product chirper-play
	.build/release/chirper-play $(ARGS)

## Install what the tests need, check formatting, build and run every test.
test: deps-test lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

build: deps-run
	$(SWIFT) build

## Formatting is the tool's job: `make format` rewrites, `make lint` checks.
format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

## Regenerate the offline demo catalog (assets/demo) from its generator.
demo-assets:
	python3 scripts/make-demo-catalog.py

deps-run:
	@scripts/ensure-packages.sh $(RUN_PACKAGES)

deps-test:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)

deps-bench:
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)

## Benchmark chirper-play against mpg123 side by side (loopback HTTP server, private PulseAudio null sink):
## prints a table and writes the figures, with the machine, into BENCH.md. About 14 minutes plus the build.
BENCH_ARGS ?=
bench: deps-bench
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build-bench --product chirper-play
	python3 scripts/bench/bench.py --binary .build-bench/release/chirper-play --write BENCH.md $(BENCH_ARGS)

clean:
	rm -rf .build

## Install the binary, its manual page, bash/zsh/fish completions and the demo catalog under PREFIX
## (PREFIX=~/.local needs no root); `make uninstall PREFIX=…` removes exactly those. INSTALL_BINARY installs a
## binary already built instead of building a release one.
PREFIX ?= /usr/local
INSTALL_BINARY ?=
install:
	@if [ -z "$(INSTALL_BINARY)" ]; then $(MAKE) --no-print-directory deps-run && \
		$(SWIFT) build -c release --static-swift-stdlib --product chirper-play; fi
	scripts/install.sh install "$(PREFIX)" "$(or $(INSTALL_BINARY),.build/release/chirper-play)"

uninstall:
	scripts/install.sh uninstall "$(PREFIX)"

## Fuzz every reader of unchecked bytes (FuzzTarget.all) with libFuzzer, FUZZ_SECONDS each (FUZZ_TARGETS: some).
FUZZ_SECONDS ?= 60
fuzz: deps-run
	$(SWIFT) build --scratch-path .build-fuzz --product chirper-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xswiftc -D -Xswiftc CHIRPER_FUZZ
	scripts/fuzz.sh .build-fuzz/debug/chirper-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)