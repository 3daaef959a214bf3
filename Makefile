# Front door. `make demo` and `make test` do all the set-up on a fresh
# Debian machine: dependencies, configure, build, then their job.
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS ?= $(shell nproc)
# strobe, libstrobe and the fuzz targets with ASan+UBSan (clang), for the
# unit and e2e tests and each fuzz target's brief run in `make test`: one
# build of strobe's code serves both (libFuzzer's coverage counters, without
# its comparison tracing). -O1 -gline-tables-only, as OSS-Fuzz builds.
ASAN_BUILD ?= build-asan
SAN_CFLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
  -DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only"
ASAN_FLAGS ?= $(SAN_CFLAGS) -DSTROBE_SANITIZE=ON -DSTROBE_FUZZ=ON
# The fuzz targets alone with libFuzzer's full instrumentation, for long
# runs (`make fuzz`, FUZZ_SECONDS each).
FUZZ_BUILD ?= build-fuzz
FUZZ_FLAGS ?= $(SAN_CFLAGS) -DSTROBE_FUZZ=ON
FUZZ_SECONDS ?= 300
# Prints how long each phase of `make test` took.
TIMED = scripts/timed.sh

.PHONY: all deps deps-test build build-tests demo test package clean bench-overhead bench-dwarf \
  bench-inproc bench-offcpu bench-stream build-asan test-asan asan-ctest build-fuzz fuzz test-fuzz fuzz-asan

all: build

deps:
	scripts/deps.sh build

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# What the tests need beyond `all`: the TSan build of libstrobe's own code.
build-tests: deps-test $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target all inproc_stress_thread

# The demo needs strobe and the program it profiles, nothing else.
demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target strobe demo
	$(BUILD)/strobe record -F 999 -g auto -o $(BUILD)/demo.db -- $(BUILD)/examples/demo/demo
	@echo
	$(BUILD)/strobe report $(BUILD)/demo.db --top 10
	$(BUILD)/strobe report $(BUILD)/demo.db -o $(BUILD)/demo.svg
	$(BUILD)/strobe report $(BUILD)/demo.db -o $(BUILD)/demo.html
	@echo "flame graph: $(BUILD)/demo.svg (open it in a browser)"
	@echo "viewer:      $(BUILD)/demo.html (timeline, flame graph, top functions; open it in a browser)"

deps-test:
	scripts/deps.sh test

# deps-test first: test tools found at configure time must be installed.
# Then every test, the unit and e2e tests again against an ASan+UBSan
# build, and every fuzz target for 10 s; scripts/test.sh overlaps each
# later build with the tests before it (under 20 minutes on 2 cores:
# docs/DEVELOPING.md).
test: deps-test
	BUILD=$(BUILD) ASAN_BUILD=$(ASAN_BUILD) JOBS=$(JOBS) MAKE="$(MAKE)" FUZZ_SECONDS=10 \
	  scripts/test.sh

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja $(ASAN_FLAGS)

build-asan: deps-test $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The unit and end-to-end tests (labels unit, e2e) against the ASan+UBSan
# strobe and libstrobe; any report fails the test that caused it.
test-asan: build-asan
	$(MAKE) --no-print-directory asan-ctest

# Those tests without building first; ASAN_TESTS selects (scripts/test.sh
# runs them in parts).
ASAN_TESTS ?= -L '^(unit|e2e)$$'
asan-ctest:
	env -u DEBUGINFOD_URLS ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ASAN_SYMBOLIZER_PATH=$(shell command -v llvm-symbolizer-16) \
	  ctest --test-dir $(ASAN_BUILD) $(ASAN_TESTS) --output-on-failure -j $(JOBS) --timeout 600

$(FUZZ_BUILD)/build.ninja:
	cmake -S . -B $(FUZZ_BUILD) -G Ninja $(FUZZ_FLAGS)

build-fuzz: deps-test $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target strobe_fuzzers

# Each fuzz target for FUZZ_SECONDS (fuzz/README.md), then its speed.
fuzz: build-fuzz
	$(MAKE) --no-print-directory test-fuzz

# The fuzz targets of the sanitized build (not in its `all`), then each one's
# brief run: scripts/test.sh runs this beside the ASan tests.
fuzz-asan:
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target strobe_fuzzers
	$(MAKE) --no-print-directory test-fuzz FUZZ_BUILD=$(ASAN_BUILD) JOBS=1

test-fuzz:
	@status=0; FUZZ_SECONDS=$(FUZZ_SECONDS) ctest --test-dir $(FUZZ_BUILD) -L fuzz \
	  --output-on-failure -j $(JOBS) || status=$$?; \
	  cat $(FUZZ_BUILD)/fuzz/work/*/stats.txt; exit $$status

# strobe_VERSION_ARCH.deb in $(BUILD): the executable, libstrobe (shared and
# static, headers, pkg-config, CMake package), man pages, bash completion.
package: build
	scripts/deps.sh package
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/strobe_*.deb

bench-overhead: build
	scripts/deps.sh bench
	bench/overhead/run.sh $(BUILD)

bench-dwarf: build
	scripts/deps.sh bench
	bench/dwarf/run.sh $(BUILD)

bench-offcpu: build
	scripts/deps.sh bench
	bench/offcpu/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

bench-inproc: build
	scripts/deps.sh bench
	bench/inproc/run.sh $(BUILD)

# BASE_BUILD: a build without the streamed recording, side by side.
bench-stream: build
	bench/stream/run.sh $(BUILD) 5 $(BASE_BUILD)
