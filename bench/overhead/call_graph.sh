#!/usr/bin/env bash
# Is -g auto as cheap for the profiled program as -g fp? The fixed 2-thread
# workload alone, under `strobe record -F HZ -g fp` and under `strobe record
# -F HZ -g auto`, in interleaved rounds. The workload reports its own
# user+sys CPU time (what the profiler made the target pay); strobe's own CPU
# (recording, unwinding, symbolizing, writing) is what the shell counts for
# its children minus the workload's.
# Usage: bench/overhead/call_graph.sh [BUILD_DIR] [ROUNDS] [HZ]
set -euo pipefail
build=${1:-build}
rounds=${2:-9}
hz=${3:-99}
workload="$build/bench/bench_overhead_workload"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }
# Runs "$@" and prints the user+sys CPU ns of it and its children.
children_cpu() {
  bash -c '"$@" >/dev/null; times' _ "$@" 2>>"$out/last.err" | tail -1 |
    awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); sub("s", "", t[2]);
           n += (t[1] * 60 + t[2]) * 1e9 } printf "%.0f\n", n }'
}

for ((i = 1; i <= rounds; i++)); do
  "$workload" 2>"$out/base.$i"
  for mode in fp auto; do
    : >"$out/last.err"
    total=$(children_cpu "$strobe" record -F "$hz" -g "$mode" -o "$out/s.db" -- "$workload")
    mv "$out/last.err" "$out/$mode.$i"
    echo "$total" >"$out/$mode.total.$i"
  done
  echo "round $i: base $(cpu_of "$out/base.$i") fp $(cpu_of "$out/fp.$i") auto $(cpu_of "$out/auto.$i")" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/base.$i"; done | median)
fp=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/fp.$i"; done | median)
auto=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/auto.$i"; done | median)
# strobe's own CPU: its children's total minus the workload's, per round.
own() {
  for ((i = 1; i <= rounds; i++)); do
    echo $(($(cat "$out/$1.total.$i") - $(cpu_of "$out/$1.$i")))
  done | median
}
fp_own=$(own fp)
auto_own=$(own auto)

awk -v b="$base" -v f="$fp" -v a="$auto" -v fo="$fp_own" -v ao="$auto_own" -v r="$rounds" \
  -v hz="$hz" 'BEGIN {
  fi = (f - b) / b * 100; ai = (a - b) / b * 100;
  printf "| workload CPU alone, median of %d | %.3f s |\n", r, b / 1e9;
  printf "|---|---|\n";
  printf "| under `strobe record -F %d -g fp` | %.3f s (%+.2f%%) |\n", hz, f / 1e9, fi;
  printf "| under `strobe record -F %d -g auto` | %.3f s (%+.2f%%) |\n", hz, a / 1e9, ai;
  printf "| -g auto minus -g fp, of the workload CPU | %+.2f%% |\n", (a - f) / b * 100;
  printf "| strobe own CPU, -g fp / -g auto | %.1f ms / %.1f ms |\n", fo / 1e6, ao / 1e6;
}'
