#!/usr/bin/env bash
# libstrobe against gperftools, both preloaded into the same unmodified
# 2-thread workload (bench/overhead/workload.cpp) at 99 and 999 Hz:
#   overhead  = the workload's own CPU time (user+sys, getrusage) over its
#               time alone, median of interleaved rounds;
#   rate      = samples kept per CPU-second of the workload (the requested
#               rate is per CPU-second of each thread).
# libstrobe runs with each engine (perf, timer); gperftools is libprofiler
# with CPUPROFILE_FREQUENCY (setitimer ITIMER_PROF underneath).
# Usage: bench/inproc/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
workload="$build/bench/bench_overhead_workload"
lib="$build/libstrobe.so"
profiler=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1)
[ -n "$profiler" ] || { echo "gperftools is missing: scripts/deps.sh bench" >&2; exit 1; }
command -v google-pprof >/dev/null || { echo "google-pprof is missing: scripts/deps.sh bench" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| Hz | profiler | workload CPU (median of $rounds) | overhead | samples per CPU-second | of requested |"
echo "|---|---|---|---|---|---|"
for hz in 99 999; do
  for ((i = 1; i <= rounds; i++)); do
    "$workload" 2>"$out/base.$i"
    for engine in perf timer; do
      env LD_PRELOAD="$lib" STROBE_OUTPUT="$out/$engine.txt" STROBE_FREQ=$hz STROBE_ENGINE=$engine \
        "$workload" 2>"$out/$engine.$i"
      grep -o 'samples: *[0-9]*' "$out/$engine.txt" | grep -o '[0-9]*' > "$out/$engine.samples.$i"
    done
    env LD_PRELOAD="$profiler" CPUPROFILE="$out/gperf.prof" CPUPROFILE_FREQUENCY=$hz \
      "$workload" 2>"$out/gperf.$i"
    google-pprof --text "$workload" "$out/gperf.prof" 2>/dev/null |
      sed -n 's/^Total: \([0-9]*\) samples.*/\1/p' > "$out/gperf.samples.$i"
  done
  base=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/base.$i"; done | median)
  echo "| $hz | none | $(awk -v b="$base" 'BEGIN { printf "%.3f s", b / 1e9 }') | | | |"
  for p in perf timer gperf; do
    cpu=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/$p.$i"; done | median)
    rate=$(for ((i = 1; i <= rounds; i++)); do
      awk -v s="$(cat "$out/$p.samples.$i")" -v c="$(cpu_of "$out/$p.$i")" 'BEGIN { printf "%.1f\n", s / (c / 1e9) }'
    done | median)
    case $p in
      perf) name="libstrobe, perf engine" ;;
      timer) name="libstrobe, timer engine" ;;
      gperf) name="gperftools libprofiler" ;;
    esac
    awk -v hz="$hz" -v n="$name" -v c="$cpu" -v b="$base" -v r="$rate" 'BEGIN {
      printf "| %s | %s | %.3f s | %+.2f%% | %.1f | %.0f%% |\n", hz, n, c / 1e9, (c - b) / b * 100, r, r / hz * 100 }'
  done
done
