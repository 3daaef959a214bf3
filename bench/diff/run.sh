#!/usr/bin/env bash
# strobe diff on two 1,000,000-sample synthetic recordings (strobe-synth
# --wide: 2,000 functions on 40,000 call paths; the second drawn with
# another seed from the same paths, as a second run of one program): wall
# time, CPU (user + sys) and peak RSS for each format, reading both
# recordings included; then the compare page in headless Chromium
# (compare.mjs) when tests/browser's packages are installed.
# Goal (the diff issue): under 2 s and 500 MB.
# Usage: bench/diff/run.sh [BUILD_DIR] [SAMPLES]
set -euo pipefail
build=${1:-build}
samples=${2:-1000000}
out=$build/bench/diff
mkdir -p "$out"
"$build/strobe-synth" "$out/a.db" "$samples" --wide
"$build/strobe-synth" "$out/b.db" "$samples" --wide --seed=7
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== strobe report a.db (reading one recording, for reference)"
/usr/bin/time -f "report text %e s wall  %U+%S s CPU  %M KB" \
  "$build/strobe" report "$out/a.db" -o /dev/null -f text
echo "== strobe diff a.db b.db, each format"
for f in text json csv flamegraph pprof html; do
  /usr/bin/time -f "$f %e s wall  %U+%S s CPU  %M KB" \
    "$build/strobe" diff "$out/a.db" "$out/b.db" -f "$f" -o "$out/diff.$f"
  ls -l "$out/diff.$f" | awk -v f="$f" '{ printf "  %s output: %.1f MB\n", f, $5 / 1e6 }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -d "$(dirname "$0")/../../tests/browser/node_modules/playwright-core" ] && [ -x /usr/bin/chromium ]; then
  echo "== the compare page in Chromium (1280 px wide)"
  node "$(dirname "$0")/compare.mjs" "$out/diff.html"
else
  echo "(compare page skipped: run tests/browser/install.sh and scripts/deps.sh test for chromium)"
fi
rm -f "$out"/diff.*
