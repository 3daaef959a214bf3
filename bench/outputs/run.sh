#!/usr/bin/env bash
# Converts a 1,000,000-sample synthetic recording to every format: the
# writers alone (bench_outputs, in memory) and `strobe report` end to end
# (reading the recording included), with wall time, CPU time (user + sys)
# and peak RSS.
# Usage: bench/outputs/run.sh [BUILD_DIR] [SAMPLES]
set -euo pipefail
build=${1:-build}
samples=${2:-1000000}
out=$build/bench/outputs
mkdir -p "$out"
echo "== writers (profile already in memory)"
"$build/bench/bench_outputs" "$samples" "$out"
echo
echo "== strobe report end to end (reads the recording, then writes)"
"$build/strobe-synth" "$out/big.db" "$samples" --wide
/usr/bin/time -f "%e s wall  %U+%S s CPU  %M KB" "$build/strobe" report "$out/big.db" --tid 1 -f csv -o /dev/null 2>&1 \
  | sed 's/^/(read only)  /' || true
for f in text folded flamegraph pprof speedscope chrome json csv; do
  /usr/bin/time -f "$f %e s wall  %U+%S s CPU  %M KB" "$build/strobe" report "$out/big.db" -f "$f" -o "$out/big.$f"
  rm -f "$out/big.$f"
done
