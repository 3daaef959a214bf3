#!/usr/bin/env bash
# What streaming the recording to disk as it is made costs `strobe record`
# (src/store/stream.hpp): the 2-thread workload of bench/overhead under
# `strobe record -F 999` (fp), `-F 999 -g dwarf` (more work per drain pass)
# and `-F 10000` (ten times the rows), in interleaved rounds, with
# STROBE_DEBUG=1, which prints the
# stream's own figures: the writer thread's CPU, the longest batch write,
# and the time the recording (drain) thread spent copying rows for it.
# With a second build of strobe without streaming (BASE_BUILD, e.g. main),
# also strobe's whole CPU (user+sys of strobe and the workload, minus the
# workload's own) and the workload's CPU with each, side by side.
# Usage: bench/stream/run.sh [BUILD_DIR] [ROUNDS] [BASE_BUILD_DIR]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
base=${3:-}
workload="$build/bench/bench_overhead_workload"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

field() { grep -o "$1=[0-9.]*" "$2" | head -1 | cut -d= -f2; }
# strobe's CPU in ms: user+sys of the whole run (time -f) minus the workload's.
strobe_cpu_ms() {
  local total wl
  total=$(awk '/^rusage / {print ($2 + $3) * 1000}' "$1")
  wl=$(field workload_cpu_ns "$1")
  awk -v t="$total" -v w="$wl" 'BEGIN { printf "%.0f\n", t - w / 1e6 }'
}
run() {  # run STROBE MODE-ARGS OUT
  local s=$1 log=$3
  /usr/bin/time -f 'rusage %U %S' -o "$log.time" \
    env STROBE_DEBUG=1 "$s" record $2 -o "$out/r.db" -- "$workload" >/dev/null 2>"$log"
  cat "$log.time" >>"$log"
}

for mode in "-F 999 -g fp" "-F 999 -g dwarf" "-F 10000 -g fp"; do
  tag=${mode// /}
  for ((i = 1; i <= rounds; i++)); do
    run "$build/strobe" "$mode" "$out/new.$tag.$i"
    if [ -n "$base" ]; then run "$base/strobe" "$mode" "$out/base.$tag.$i"; fi
  done
  median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  col() {  # col FILE-PREFIX REGEX-FIELD
    for ((i = 1; i <= rounds; i++)); do sed -n "$2" "$1.$i"; done | median
  }
  p="$out/new.$tag"
  writer=$(col "$p" 's/.*writer thread \([0-9.]*\) ms CPU.*/\1/p')
  longest=$(col "$p" 's/.*longest batch \([0-9.]*\) ms.*/\1/p')
  copy=$(col "$p" 's/.*recording thread \([0-9.]*\) ms copying.*/\1/p')
  copy_max=$(col "$p" 's/.*copying (longest \([0-9]*\) us).*/\1/p')
  samples=$(col "$p" 's/.*streamed \([0-9]*\) samples.*/\1/p')
  lost=$(col "$p" 's/.* \([0-9]*\) lost$/\1/p')
  s_cpu=$(for ((i = 1; i <= rounds; i++)); do strobe_cpu_ms "$p.$i"; done | median)
  w_cpu=$(for ((i = 1; i <= rounds; i++)); do field workload_cpu_ns "$p.$i"; done | median)
  echo "### strobe record $mode, median of $rounds"
  echo "| | this build |${base:+ without streaming |}"
  echo "|---|---|${base:+---|}"
  brow() {  # brow LABEL VALUE BASE-VALUE
    if [ -n "$base" ]; then echo "| $1 | $2 | $3 |"; else echo "| $1 | $2 |"; fi
  }
  if [ -n "$base" ]; then
    b="$out/base.$tag"
    bs_cpu=$(for ((i = 1; i <= rounds; i++)); do strobe_cpu_ms "$b.$i"; done | median)
    bw_cpu=$(for ((i = 1; i <= rounds; i++)); do field workload_cpu_ns "$b.$i"; done | median)
    blost=$(col "$b" 's/.* \([0-9]*\) lost$/\1/p')
  fi
  brow "samples streamed" "$samples" "-"
  brow "stream writer thread CPU" "$writer ms" "-"
  brow "longest batch write (wall, writer thread)" "$longest ms" "-"
  brow "drain thread copying for the stream" "$copy ms (longest $copy_max us)" "-"
  brow "strobe CPU (all threads)" "$s_cpu ms" "${bs_cpu:-} ms"
  brow "workload CPU" "$(awk -v w="$w_cpu" 'BEGIN{printf "%.3f s", w/1e9}')" \
    "$(awk -v w="${bw_cpu:-0}" 'BEGIN{printf "%.3f s", w/1e9}')"
  brow "lost samples" "$lost" "${blost:-}"
  echo
done
