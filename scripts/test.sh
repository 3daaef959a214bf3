#!/usr/bin/env bash
# test.sh: what `make test` runs once the dependencies are installed. Every
# phase of the suite, with the sanitized build overlapped with the tests of
# the plain one at idle priority:
#
#   build        strobe, libstrobe, the tests and fixtures, the TSan libstrobe
#   tests        the tests of that build (ctest), but | asan-build, then its
#                the consumer and package tests      | unit tests that need
#                                                    | not run alone, idle;
#                                                    | agent_push
#   asan-build   the rest of the ASan+UBSan build (clang) and those tests,
#                if the tests outran them
#   asan-tests   the other unit and the e2e tests    | the fuzz targets (of
#                against it                          | that build), then each
#                                                    | for 10 s, one at a
#                                                    | time, idle; the
#                                                    | consumer and package
#                                                    | tests, idle;
#                                                    | agent_push
#   fuzz         what is left of the fuzz runs
#   consumers    what is left of the consumer and package tests
#
# agent_push (about 75 s, mostly waiting out its receiver's outage) runs
# beside each test phase at normal priority: in the phase, ctest would hold
# every RUN_SERIAL test back until it ended.
#
# The tests run at normal priority and the builds beside them under
# SCHED_IDLE (chrt -i): a build only takes CPU time that the tests leave
# (most of them profile one program at a time, on one of the two cores), so
# the tests see the machine as before. A failing build stops the run; a
# failing test phase does not: the later phases still run, and the run fails
# at the end, naming every phase that failed. Each phase's wall and CPU time
# is printed (docs/DEVELOPING.md keeps them).
#
# Environment (the Makefile sets it): BUILD ASAN_BUILD JOBS MAKE FUZZ_SECONDS.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${ASAN_BUILD:=build-asan}"
export ASAN_BUILD  # for scripts/ctest_numbers.py in the background
: "${JOBS:=$(nproc)}" "${MAKE:=make}" "${FUZZ_SECONDS:=10}"
make_=("$MAKE" --no-print-directory BUILD="$BUILD" ASAN_BUILD="$ASAN_BUILD" JOBS="$JOBS")
failed=()
start_all=$(date +%s)
# Debian's profile.d may name public debuginfod servers: tests stay offline.
unset DEBUGINFOD_URLS

phase() {  # phase NAME CMD...: runs CMD as scripts/timed.sh does
  scripts/timed.sh "$@" || { failed+=("$1"); return 1; }
}

# background NAME CMD...: starts CMD at idle priority, its output in
# NAME.log at the top of the tree; `finish NAME` waits for it.
declare -A bg_pid=()
background() {
  local name=$1
  shift
  setsid chrt -i 0 nice -n 19 "$@" > "$name.log" 2>&1 &
  bg_pid[$name]=$!
}
finish() {  # finish NAME: waits for it; prints its phases' times
  local name=$1 status=0 start
  start=$(date +%s)
  wait "${bg_pid[$name]}" || status=$?
  grep -E '^strobe: phase |exec/s, [0-9]* runs' "$name.log"
  echo "strobe: waited $(($(date +%s) - start)) s for $name after the tests (exit $status)"
  if [ "$status" -ne 0 ]; then
    tail -50 "$name.log"
    echo "strobe: $name failed; its whole output is in $name.log"
    failed+=("$name")
  fi
  return "$status"
}
# beside NAME CMD...: as background, at normal priority.
beside() {
  local name=$1
  shift
  setsid "$@" > "$name.log" 2>&1 &
  bg_pid[$name]=$!
}
stop_background() {
  for pid in "${bg_pid[@]}"; do kill -- "-$pid" 2>/dev/null; done
}
trap stop_background EXIT

summary() {
  echo "strobe: make test took $(($(date +%s) - start_all)) s"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "strobe: failed: ${failed[*]}"
    exit 1
  fi
  echo "strobe: every phase passed"
  exit 0
}

phase build "${make_[@]}" build-tests || summary
tests/browser/install.sh || { failed+=(browser-install); summary; }

# The tests that hand strobe's files to their consumers (pprof, Chromium,
# xmllint) and build the Debian package check files, not timings: they run
# later, beside the ASan tests (which leave a core idle), rather than here,
# where the machine is busy with the sanitized build.
consumers='^(consumer|package)$'
push=e2e.agent_push
export push  # for the background's scripts/ctest_numbers.py
# The sanitized build, then its unit tests that need not run alone: they
# take what the plain build's serial tests leave (exit 2: the build failed).
# shellcheck disable=SC2016
background asan-build bash -c 'scripts/timed.sh asan-build "$@" build-asan || exit 2
  early=$(scripts/ctest_numbers.py "$ASAN_BUILD" early "$push") || exit 2
  scripts/timed.sh asan-unit "$@" asan-ctest ASAN_TESTS="-I 0,0,0,$early"' _ "${make_[@]}"
beside push scripts/timed.sh push ctest --test-dir "$BUILD" -R "^$push\$" --output-on-failure \
  --timeout 300
phase tests ctest --test-dir "$BUILD" -LE "$consumers" -E "^$push\$" --output-on-failure -j "$JOBS" \
  --timeout 300
finish push

# The fuzz targets, built with the ASan tests' strobe, are built and run
# beside those tests at idle priority, one at a time (the tests keep a core),
# as are the consumer tests of the plain build.
export FUZZ_SECONDS
asan_built=0
finish asan-build || asan_built=$?
if [ "$asan_built" -eq 1 ]; then
  failed[${#failed[@]} - 1]=asan-unit  # built; some of those tests failed
  asan_built=0
fi
background consumers scripts/timed.sh consumers \
  ctest --test-dir "$BUILD" -L "$consumers" --output-on-failure -j 1 --timeout 600
if [ "$asan_built" -eq 0 ]; then
  background fuzz scripts/timed.sh fuzz "${make_[@]}" fuzz-asan
  beside push-asan scripts/timed.sh push-asan "${make_[@]}" asan-ctest ASAN_TESTS="-R $push"
  if rest=$(scripts/ctest_numbers.py "$ASAN_BUILD" rest "$push"); then
    phase asan-tests "${make_[@]}" asan-ctest ASAN_TESTS="-I 0,0,0,$rest"
  else
    failed+=(asan-tests)
  fi
  finish push-asan
  finish fuzz
fi
finish consumers
summary
