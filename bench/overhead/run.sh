#!/usr/bin/env bash
# CPU-time inflation of a profiled program: the same workload alone, under
# `strobe record -F 999` and under `perf record -F 999 -g`, in interleaved
# rounds so machine noise hits all three alike. The workload reports its own
# user+sys CPU time, so the figure is what each profiler adds to the target.
# Usage: bench/overhead/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
workload="$build/bench/bench_overhead_workload"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v perf >/dev/null || { echo "perf is missing: scripts/deps.sh bench" >&2; exit 1; }

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }

for ((i = 1; i <= rounds; i++)); do
  "$workload" 2>"$out/base.$i"
  "$strobe" record -F 999 -o "$out/s.db" -- "$workload" 2>"$out/strobe.$i" >/dev/null
  perf record -q -F 999 -g -o "$out/perf.data" -- "$workload" 2>"$out/perf.$i" >/dev/null
  echo "round $i: base $(cpu_of "$out/base.$i") strobe $(cpu_of "$out/strobe.$i") perf $(cpu_of "$out/perf.$i")" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/base.$i"; done | median)
s=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/strobe.$i"; done | median)
p=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/perf.$i"; done | median)

awk -v b="$base" -v s="$s" -v p="$p" -v r="$rounds" 'BEGIN {
  si = (s - b) / b * 100; pi = (p - b) / b * 100;
  printf "| workload CPU, median of %d | %.3f s |\n", r, b / 1e9;
  printf "|---|---|\n";
  printf "| under `strobe record -F 999` | %.3f s (%+.2f%%) |\n", s / 1e9, si;
  printf "| under `perf record -F 999 -g` | %.3f s (%+.2f%%) |\n", p / 1e9, pi;
  printf "| strobe added / perf added | %.2f |\n", (pi > 0 ? si / pi : 0);
}'
