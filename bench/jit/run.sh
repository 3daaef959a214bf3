#!/bin/sh
# bench/jit/run.sh BUILD: the cost of naming one JIT-compiled function, with
# libstrobe's registration API and with the conventions runtimes use for
# perf today (see jit_register.cpp). Median of 5 runs of 100,000 functions
# of 256 bytes each; prints ns per function and the ratio to a perf-map line.
set -eu
BUILD=${1:-build}
BIN=$BUILD/bench/bench_jit_register
[ -x "$BIN" ] || { echo "build $BIN first (cmake --build $BUILD --target bench_jit_register)" >&2; exit 2; }
N=${N:-100000}
CODE=${CODE:-256}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
export BENCH_DIR="$DIR"

median() { sort -n | sed -n 3p; }
run() {  # LABEL ENV... -- MODE
  label=$1; shift
  for i in 1 2 3 4 5; do
    env "$@" "$BIN" "$MODE" "$N" "$CODE" | awk '{print $2}'
  done | median | sed "s/^/$label /"
}
{
  MODE=perfmap run "perf-map line (fprintf, buffered)" -u STROBE_JITDUMP
  MODE=perfmap-flush run "perf-map line + fflush" -u STROBE_JITDUMP
  MODE=jitdump-fwrite run "own jitdump record (fwrite, buffered)" -u STROBE_JITDUMP
  MODE=jitdump-write run "own jitdump record (write(2) each)" -u STROBE_JITDUMP
  MODE=api run "strobe_jit_register+unregister" -u STROBE_JITDUMP
  MODE=api-lines run "  ... + strobe_jit_register_lines (2 rows)" -u STROBE_JITDUMP
  MODE=api run "  ... with STROBE_JITDUMP (jitdump + code)" STROBE_JITDUMP="$DIR"
} > "$DIR/results"
base=$(sed -n 2p "$DIR/results" | awk '{print $NF}')
echo "ns per function ($N functions of $CODE bytes, median of 5; ratio to perf-map line + fflush)"
awk -v base="$base" '{ v=$NF; $NF=""; printf "%-48s %8.1f ns  %5.2fx\n", $0, v, v/base }' "$DIR/results"
