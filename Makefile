# Front door. `make demo` and `make test` do all the set-up on a fresh
# Debian machine: dependencies, configure, build, then their job.
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS ?= $(shell nproc)

.PHONY: all deps deps-test build demo test clean bench-overhead bench-dwarf bench-inproc \
  bench-stream

all: build

deps:
	scripts/deps.sh build

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
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
test: deps-test build
	tests/browser/install.sh
	# Debian's profile.d may name public debuginfod servers: tests stay offline.
	env -u DEBUGINFOD_URLS ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --timeout 300

bench-overhead: build
	scripts/deps.sh bench
	bench/overhead/run.sh $(BUILD)

bench-dwarf: build
	scripts/deps.sh bench
	bench/dwarf/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)

bench-inproc: build
	scripts/deps.sh bench
	bench/inproc/run.sh $(BUILD)

# BASE_BUILD: a build without the streamed recording, side by side.
bench-stream: build
	bench/stream/run.sh $(BUILD) 5 $(BASE_BUILD)
