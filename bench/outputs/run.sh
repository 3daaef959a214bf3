#!/usr/bin/env bash
# Converts a 1,000,000-sample synthetic recording to every format: the
# writers alone (bench_outputs, in memory) and `strobe report` end to end
# (reading the recording included), with wall time, CPU time (user + sys)
# and peak RSS. Last, the HTML page in headless Chromium (bench/outputs/
# viewer.mjs), when tests/browser's packages are installed.
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
for f in text folded flamegraph pprof speedscope chrome json csv html; do
  /usr/bin/time -f "$f %e s wall  %U+%S s CPU  %M KB" "$build/strobe" report "$out/big.db" -f "$f" -o "$out/big.$f"
  rm -f "$out/big.$f"
done
echo
echo "== the HTML viewer in Chromium (1280 px wide)"
"$build/strobe" report "$out/big.db" -o "$out/big.html"
ls -l "$out/big.html" | awk '{ printf "page: %.1f MB\n", $5 / 1e6 }'
if [ -d "$(dirname "$0")/../../tests/browser/node_modules/playwright-core" ] && [ -x /usr/bin/chromium ]; then
  node "$(dirname "$0")/viewer.mjs" "$out/big.html"
else
  echo "(skipped: run tests/browser/install.sh and scripts/deps.sh test for chromium)"
fi
rm -f "$out/big.html"
