#!/usr/bin/env bash
# libstrobe against gperftools, both preloaded into the same unmodified
# 2-thread workload (bench/overhead/workload.cpp) at 99 and 999 Hz:
#   overhead  = the workload's own CPU time (user+sys, getrusage) over its
#               time alone, median of interleaved rounds;
#   rate      = samples kept per CPU-second of the workload (the requested
#               rate is per CPU-second of each thread);
#   per sample = the added CPU time divided by the samples kept (median).
# libstrobe runs with each engine (perf, timer); gperftools is libprofiler
# with CPUPROFILE_FREQUENCY (setitimer ITIMER_PROF underneath). At 999 Hz the
# perf engine also runs at 250 Hz, about the rate gperftools and the timer
# engine actually deliver when asked for 999 Hz (the scheduler tick caps
# them), so the three can be compared at equal delivered rates.
# COMPARE_LIB=path/to/another/libstrobe.so adds its perf engine to every
# round (before/after comparisons of a change, interleaved).
# Usage: bench/inproc/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
workload="$build/bench/bench_overhead_workload"
lib="$build/libstrobe.so"
compare=${COMPARE_LIB:-}
profiler=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1)
[ -n "$profiler" ] || { echo "gperftools is missing: scripts/deps.sh bench" >&2; exit 1; }
command -v google-pprof >/dev/null || { echo "google-pprof is missing: scripts/deps.sh bench" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# strobe_run NAME LIB ENGINE HZ ROUND
strobe_run() {
  env LD_PRELOAD="$2" STROBE_OUTPUT="$out/$1.txt" STROBE_FREQ="$4" STROBE_ENGINE="$3" \
    "$workload" 2>"$out/$1.$5"
  grep -o 'samples: *[0-9]*' "$out/$1.txt" | grep -o '[0-9]*' > "$out/$1.samples.$5"
}

echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| Hz | profiler | workload CPU (median of $rounds) | overhead | samples per CPU-second | of requested | CPU per sample |"
echo "|---|---|---|---|---|---|---|"
for hz in 99 999; do
  profilers="perf timer gperf"
  [ "$hz" = 999 ] && profilers="perf perf250 timer gperf"
  [ -n "$compare" ] && profilers="$profilers compare"
  for ((i = 1; i <= rounds; i++)); do
    "$workload" 2>"$out/base.$i"
    strobe_run perf "$lib" perf "$hz" "$i"
    [ "$hz" = 999 ] && strobe_run perf250 "$lib" perf 250 "$i"
    strobe_run timer "$lib" timer "$hz" "$i"
    [ -n "$compare" ] && strobe_run compare "$compare" perf "$hz" "$i"
    env LD_PRELOAD="$profiler" CPUPROFILE="$out/gperf.prof" CPUPROFILE_FREQUENCY=$hz \
      "$workload" 2>"$out/gperf.$i"
    google-pprof --text "$workload" "$out/gperf.prof" 2>/dev/null |
      sed -n 's/^Total: \([0-9]*\) samples.*/\1/p' > "$out/gperf.samples.$i"
  done
  base=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/base.$i"; done | median)
  echo "| $hz | none | $(awk -v b="$base" 'BEGIN { printf "%.3f s", b / 1e9 }') | | | | |"
  for p in $profilers; do
    cpu=$(for ((i = 1; i <= rounds; i++)); do cpu_of "$out/$p.$i"; done | median)
    rate=$(for ((i = 1; i <= rounds; i++)); do
      awk -v s="$(cat "$out/$p.samples.$i")" -v c="$(cpu_of "$out/$p.$i")" 'BEGIN { printf "%.1f\n", s / (c / 1e9) }'
    done | median)
    per=$(for ((i = 1; i <= rounds; i++)); do
      awk -v s="$(cat "$out/$p.samples.$i")" -v c="$(cpu_of "$out/$p.$i")" -v b="$base" \
        'BEGIN { printf "%.1f\n", (s > 0 ? (c - b) / s / 1e3 : 0) }'
    done | median)
    asked=$hz
    case $p in
      perf) name="libstrobe, perf engine" ;;
      perf250) name="libstrobe, perf engine at 250 Hz"; asked=250 ;;
      timer) name="libstrobe, timer engine" ;;
      compare) name="libstrobe (COMPARE_LIB), perf engine" ;;
      gperf) name="gperftools libprofiler" ;;
    esac
    awk -v hz="$hz" -v n="$name" -v c="$cpu" -v b="$base" -v r="$rate" -v a="$asked" -v per="$per" 'BEGIN {
      printf "| %s | %s | %.3f s | %+.2f%% | %.1f | %.0f%% | %.0f us |\n", hz, n, c / 1e9, (c - b) / b * 100, r, r / a * 100, per }'
  done
done
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
