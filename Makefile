# chirper-play: `make run` and `make test` are the two commands; each installs what it needs first.
SHELL := /bin/bash
SWIFT ?= swift
RUN_PACKAGES := libmpg123-dev libpulse-dev libedit-dev libsonic-dev libfftw3-dev libchafa-dev libpng-dev libsqlite3-dev \
	libsystemd-dev pkg-config
TEST_PACKAGES := $(RUN_PACKAGES) pulseaudio pulseaudio-utils mpg123 lame sox twolame libsixel-bin \
	pipewire pipewire-pulse wireplumber dbus-daemon dbus-bin playerctl man-db python3
BENCH_PACKAGES := $(TEST_PACKAGES) lame sox flac libsox-fmt-mp3 time python3-numpy
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
	install uninstall static-cxx

## Build (release) and start chirper-play; with no API key it uses the offline demo catalog.
run: deps-run static-cxx
	$(SWIFT) build $(RELEASE) --product chirper-play
	-@python3 scripts/link/check-order.py --warn --binary .build/release/chirper-play --order $(ORDER) >/dev/null
	.build/release/chirper-play $(ARGS)

## Install what the tests need, check formatting, build and run every test.
test: deps-test lint bench-tests
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
bench: deps-bench static-cxx
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-play
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-floor
	python3 scripts/link/check-order.py --binary .build-bench/release/chirper-play --order $(ORDER)
	python3 scripts/bench/bench.py --binary .build-bench/release/chirper-play --floor .build-bench/release/chirper-floor \
		--write BENCH.md $(BENCH_ARGS)

## The bench's own unit tests (its figures, table, report and sample helpers; python3 alone, in a second).
bench-tests:
	python3 -m unittest discover -s scripts/bench/tests -t scripts/bench

## Rewrite scripts/link/chirper-play.order from the functions a session runs (under valgrind), then drop the
## release binaries so that the next build links with it.
link-order: deps-bench static-cxx
	@scripts/ensure-packages.sh valgrind
	$(SWIFT) build $(RELEASE) --scratch-path .build-bench --product chirper-play
	python3 scripts/bench/link-order.py --binary .build-bench/release/chirper-play --write $(ORDER)
	rm -f .build-bench/release/chirper-play .build/release/chirper-play

clean:
	rm -rf .build .build-cxx

## The folder where lld finds libstdc++'s archive (see STATIC_CXX).
static-cxx:
	@if [ -n "$(STATIC_CXX)" ]; then mkdir -p "$(CXX_FOLDER)" && ln -sfn "$(CXX_ARCHIVE)" "$(CXX_FOLDER)/libstdc++.a"; fi

## Install the binary, its manual page, bash/zsh/fish completions and the demo catalog under PREFIX
## (PREFIX=~/.local needs no root); `make uninstall PREFIX=…` removes exactly those. INSTALL_BINARY installs a
## binary already built instead of building a release one.
PREFIX ?= /usr/local
INSTALL_BINARY ?=
install:
	@if [ -z "$(INSTALL_BINARY)" ]; then $(MAKE) --no-print-directory deps-run static-cxx && \
		$(SWIFT) build $(RELEASE) --product chirper-play && \
		{ python3 scripts/link/check-order.py --warn --binary .build/release/chirper-play --order $(ORDER) >/dev/null || true; }; fi
	scripts/install.sh install "$(PREFIX)" "$(or $(INSTALL_BINARY),.build/release/chirper-play)"

uninstall:
	scripts/install.sh uninstall "$(PREFIX)"

## Fuzz every reader of unchecked bytes (FuzzTarget.all) with libFuzzer, FUZZ_SECONDS each (FUZZ_TARGETS: some).
FUZZ_SECONDS ?= 60
fuzz: deps-run
	$(SWIFT) build --scratch-path .build-fuzz --product chirper-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xswiftc -D -Xswiftc CHIRPER_FUZZ
	scripts/fuzz.sh .build-fuzz/debug/chirper-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)