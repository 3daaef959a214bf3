#!/usr/bin/env bash
# What --off-cpu-min leaves out: each workload is recorded with
# --off-cpu-min 0 (every interval kept), then, per threshold, the share of
# off-CPU intervals and of off-CPU time below it, from the recording itself
# (strobe query), and the recording's size.
# Usage: bench/offcpu/min.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

workloads=(
  "offcpu fixture|$build/tests/fixtures/fixture_offcpu 1.5"
  "pingpong (50,000 rounds)|$build/bench/bench_offcpu_pingpong 50000"
  "dd 4 KiB blocks through a pipe|sh -c 'dd if=/dev/zero bs=4k count=100000 status=none | cat >/dev/null'"
  "200 short processes (sh, ls)|sh -c 'for i in \$(seq 200); do ls /usr/lib >/dev/null; done'"
  "gzip of 64 MB to a file|sh -c 'head -c 64000000 /dev/urandom > $out/in; gzip -1 -c $out/in > $out/in.gz; sync'"
)

echo "| workload | intervals | off-CPU time | < 10 us | < 100 us | < 1 ms | recording (min 0) |"
echo "|---|---|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  name=${w%%|*}
  cmd=${w#*|}
  eval "\"$strobe\" record --off-cpu --off-cpu-min 0 -g auto -o \"$out/r.db\" -- $cmd" >/dev/null 2>&1
  q() { "$strobe" query "$out/r.db" "$1" | tail -1; }
  n=$(q "SELECT count(*) FROM samples WHERE kind = 1")
  t=$(q "SELECT coalesce(sum(weight), 0) FROM samples WHERE kind = 1")
  cell() {
    local c s
    c=$(q "SELECT count(*) FROM samples WHERE kind = 1 AND weight < $1")
    s=$(q "SELECT coalesce(sum(weight), 0) FROM samples WHERE kind = 1 AND weight < $1")
    awk -v c="$c" -v s="$s" -v n="$n" -v t="$t" \
      'BEGIN { printf "%.1f%% of intervals, %.2f%% of time", 100 * c / (n ? n : 1), 100 * s / (t ? t : 1) }'
  }
  size=$(stat -c %s "$out/r.db")
  printf "| %s | %d | %.2f s | %s | %s | %s | %.1f MB |\n" "$name" "$n" \
    "$(awk -v t="$t" 'BEGIN { print t / 1e9 }')" "$(cell 10000)" "$(cell 100000)" "$(cell 1000000)" \
    "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')"
done
