#!/usr/bin/env bash
# bench/spans: what spans cost a program. First bench_spans (Google
# Benchmark: a span pair while nothing records and while a reader drains,
# against two clock reads and a mutex-guarded logger), then span_load at
# about 100,000 spans per second per thread: the program's CPU per 10 µs unit
# of work with spans compiled out, linked but idle, read by its own libstrobe
# session, and read by `strobe record` (each against the same mode without
# spans). Medians of REPEAT runs. Prints a table for docs/BENCHMARKS.md.
# Usage: bench/spans/run.sh BUILD [THREADS] [SECONDS] [REPEAT]
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD [THREADS] [SECONDS] [REPEAT]}" && pwd)
threads=${2:-2}
seconds=${3:-3}
repeat=${4:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -x "$build/bench/bench_spans" ]; then
  "$build/bench/bench_spans" --benchmark_repetitions="$repeat" \
    --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median|Benchmark"
else
  echo "(bench_spans not built: install libbenchmark-dev, scripts/deps.sh bench)"
fi

# median of the cpu_ns_per_unit field over $repeat runs of "$@"
median_cpu() {
  for _ in $(seq "$repeat"); do
    "$@" 2>/dev/null | sed -n 's/.*cpu_ns_per_unit \([0-9.]*\).*/\1/p'
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
rate() {
  "$@" 2>/dev/null | sed -n 's/.*per_thread_per_s \([0-9]*\).*/\1/p'
}
load=$build/bench/bench_span_load
off=$build/bench/bench_span_load_disabled
strobe=$build/strobe

echo "== span_load: $threads threads, ${seconds}s, $(rate "$load" "$threads" 1) spans/s per thread"
base=$(median_cpu "$off" "$threads" "$seconds")
idle=$(median_cpu "$load" "$threads" "$seconds")
sess_off=$(median_cpu "$off" "$threads" "$seconds" --session)
sess_on=$(median_cpu "$load" "$threads" "$seconds" --session)
rec_off=$(median_cpu "$strobe" record -o "$work/off.db" -- "$off" "$threads" "$seconds")
rec_on=$(median_cpu "$strobe" record -o "$work/on.db" -- "$load" "$threads" "$seconds")
dropped=$("$strobe" query --no-header "$work/on.db" \
  "SELECT value FROM meta WHERE key = 'dropped_spans'")
spans=$("$strobe" query --no-header "$work/on.db" "SELECT count(*) FROM spans")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a - b) / b * 100 }'; }
printf "| mode | CPU ns per unit, without spans | with spans | spans' cost |\n"
printf "|---|---|---|---|\n"
printf "| nothing records (compiled out vs linked) | %s | %s | %s |\n" "$base" "$idle" "$(pct "$idle" "$base")"
printf "| the program's own libstrobe session | %s | %s | %s |\n" "$sess_off" "$sess_on" "$(pct "$sess_on" "$sess_off")"
printf "| strobe record -- CMD | %s | %s | %s |\n" "$rec_off" "$rec_on" "$(pct "$rec_on" "$rec_off")"
echo "(last strobe record run: $spans spans recorded, $dropped dropped)"
