#!/usr/bin/env bash
# What an engine costs the processes it does not profile: the fixed
# 2-thread workload runs unprofiled while strobe records a command that
# only sleeps (`sleep`), with the perf engine (per-task events: nothing
# fires while the target sleeps) and with the BPF engine (per-CPU events:
# each fires at the rate on every CPU, whoever runs), in interleaved rounds
# against the workload with no strobe at all. The workload reports its own
# user+sys CPU (getrusage): what the other engine's interrupts cost it.
# Usage: bench/overhead/bystander.sh [BUILD_DIR] [ROUNDS] [HZ]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
hz=${3:-999}
workload="$build/bench/bench_overhead_workload"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }
# The workload beside `strobe record --engine $1 -- sleep` (none: alone).
beside() {
  local pid=""
  if [ "$1" != none ]; then
    "$strobe" record --engine "$1" -F "$hz" -o "$out/s.db" -- sleep 60 >/dev/null 2>&1 &
    pid=$!
    sleep 1  # its events exist
  fi
  "$workload" 2>"$out/$1.$2"
  if [ -n "$pid" ]; then
    kill -INT "$pid"
    wait "$pid" || true
  fi
}

for ((i = 1; i <= rounds; i++)); do
  for engine in none perf bpf; do beside "$engine" "$i"; done
  echo "round $i: alone $(cpu_of "$out/none.$i") perf $(cpu_of "$out/perf.$i")" \
    "bpf $(cpu_of "$out/bpf.$i") (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cpus() { for ((i = 1; i <= rounds; i++)); do cpu_of "$out/$1.$i"; done | median; }
awk -v n="$(cpus none)" -v p="$(cpus perf)" -v b="$(cpus bpf)" -v r="$rounds" -v hz="$hz" 'BEGIN {
  printf "| unprofiled workload CPU, median of %d | %.3f s |\n", r, n / 1e9;
  printf "|---|---|\n";
  printf "| beside the perf engine recording `sleep` at %d Hz | %.3f s (%+.2f%%) |\n", hz, p / 1e9,
         (p - n) / n * 100;
  printf "| beside the BPF engine recording `sleep` at %d Hz | %.3f s (%+.2f%%) |\n", hz, b / 1e9,
         (b - n) / n * 100;
}'
