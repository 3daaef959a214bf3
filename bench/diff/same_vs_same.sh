#!/usr/bin/env bash
# strobe diff's false-positive rate: PAIRS pairs of recordings of one
# program (tests/fixtures/diff_work, base build, strobe record -F FREQ) are
# compared, each pair once, and every pair where any row or the total is
# not `same` counts; then, with the same recordings, groups of three runs
# against three. Prints the offending rows and the rates. WHEN: `apart`
# records one run after the other, `together` the two of a pair at once
# (both then see the same machine).
# Usage: bench/diff/same_vs_same.sh [BUILD_DIR] [PAIRS] [FREQ] [apart|together]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
pairs=${2:-25}
freq=${3:-999}
when=${4:-apart}
out=$build/bench/diff/same-$when
mkdir -p "$out"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
record() {
  [ -f "$out/r$1-$freq.db" ] || "$build/strobe" record -F "$freq" -o "$out/r$1-$freq.db" -- \
    "$build/tests/fixtures/diff_base/diff_work" > /dev/null 2>&1
}
for i in $(seq 1 2 $((2 * pairs))); do
  if [ "$when" = together ]; then
    record "$i" & record $((i + 1)) & wait
  else
    record "$i"; record $((i + 1))
  fi
done
echo "load average after recording: $(cut -d' ' -f1-3 /proc/loadavg)"
# Pairs with a verdict; $@: the diff's arguments.
verdicts() {
  "$build/strobe" diff "$@" --top 0 -f csv | awk -F, 'NR > 1 && $2 != "same" { print $2 ": " $3 }'
  "$build/strobe" diff "$@" --top 0 | awk '/^total:/ && $NF != "same" { print $NF ": the total" }'
}
bad=0
for i in $(seq 1 2 $((2 * pairs))); do
  found=$(verdicts "$out/r$i-$freq.db" "$out/r$((i + 1))-$freq.db")
  if [ -n "$found" ]; then bad=$((bad + 1)); echo "pair $i: $found"; fi
done
echo "one run a side: $bad of $pairs pairs with a verdict other than same"
groups=$((2 * pairs / 6))
bad3=0
for g in $(seq 0 $((groups - 1))); do
  a=$((6 * g + 1))
  found=$(verdicts "$out/r$a-$freq.db" "$out/r$((a + 1))-$freq.db" "$out/r$((a + 2))-$freq.db" \
    --vs "$out/r$((a + 3))-$freq.db" "$out/r$((a + 4))-$freq.db" "$out/r$((a + 5))-$freq.db")
  if [ -n "$found" ]; then bad3=$((bad3 + 1)); echo "group $g: $found"; fi
done
echo "three runs a side: $bad3 of $groups comparisons with a verdict other than same"
