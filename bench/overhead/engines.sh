#!/usr/bin/env bash
# The capture engines side by side: the fixed 2-thread workload alone, under
# `strobe record --engine perf` and under `strobe record --engine bpf`, in
# interleaved rounds (so machine noise hits all three alike), at each rate
# given. Reported, medians of the rounds:
#   - the workload's own user+sys CPU (getrusage): what the engine made the
#     target pay;
#   - a bystander's CPU: the same workload, not profiled, running beside
#     the profiled one (the BPF engine's events sample every CPU, so its
#     interrupts reach processes it does not profile);
#   - strobe's own CPU per sample (its children's CPU minus the
#     workload's, over the samples it took: drain, unwind, symbolize, write)
#     and its peak RSS.
# Usage: bench/overhead/engines.sh [BUILD_DIR] [ROUNDS] [CALL_GRAPH] [HZ...]
set -euo pipefail
build=${1:-build}
rounds=${2:-7}
mode=${3:-auto}
shift $(($# < 3 ? $# : 3))
rates=("$@")
[ ${#rates[@]} -eq 0 ] && rates=(99 999)
workload="$build/bench/bench_overhead_workload"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

cpu_of() { grep -o 'workload_cpu_ns=[0-9]*' "$1" | cut -d= -f2; }
samples_of() { grep -o ', [0-9]* samples,' "$1" | tr -dc 0-9; }
# Runs "$@" with a bystander workload beside it; leaves the bystander's
# output in $out/by, the run's stderr in $out/run, and prints the user+sys
# CPU ns of "$@" and its children, then its peak RSS in KiB.
run() {
  "$workload" 2>"$out/by" &
  local by=$!
  /usr/bin/time -f 'time_cpu=%U %S rss_kb=%M' -o "$out/time" "$@" >/dev/null 2>"$out/run"
  wait "$by"
  awk '{ split($1, u, "="); printf "%.0f %s\n", (u[2] + $2) * 1e9, substr($3, 8) }' "$out/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for hz in "${rates[@]}"; do
  for ((i = 1; i <= rounds; i++)); do
    read -r _ _ < <(run "$workload")
    cp "$out/run" "$out/base.$hz.$i"
    cp "$out/by" "$out/base.by.$hz.$i"
    for engine in perf bpf; do
      read -r total rss < <(run "$strobe" record --engine "$engine" -F "$hz" -g "$mode" \
        -o "$out/s.db" -- "$workload")
      cp "$out/run" "$out/$engine.$hz.$i"
      cp "$out/by" "$out/$engine.by.$hz.$i"
      echo "$total" >"$out/$engine.total.$hz.$i"
      echo "$rss" >"$out/$engine.rss.$hz.$i"
    done
    echo "$hz Hz round $i: base $(cpu_of "$out/base.$hz.$i") perf $(cpu_of "$out/perf.$hz.$i")" \
      "bpf $(cpu_of "$out/bpf.$hz.$i") (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  done
done

echo "| $mode, medians of $rounds rounds | $(printf '%s Hz | ' "${rates[@]}")"
echo "|---|$(printf -- '---|%.0s' "${rates[@]}")"
row() {  # LABEL, then a command printing the cell for HZ
  local label=$1 cells=""
  shift
  for hz in "${rates[@]}"; do cells+="$("$@" "$hz") | "; done
  echo "| $label | $cells"
}
cpus() { for ((i = 1; i <= rounds; i++)); do cpu_of "$out/$1.$2.$i"; done | median; }
target() {
  local b e
  b=$(cpus base "$2")
  e=$(cpus "$1" "$2")
  awk -v b="$b" -v e="$e" 'BEGIN { printf "%.3f s (%+.2f%%)", e / 1e9, (e - b) / b * 100 }'
}
alone() { cpus base "$1" | awk '{ printf "%.3f s", $1 / 1e9 }'; }
bystander() {
  local b e
  b=$(cpus base.by "$2")
  e=$(cpus "$1".by "$2")
  awk -v b="$b" -v e="$e" 'BEGIN { printf "%+.2f%%", (e - b) / b * 100 }'
}
per_sample() {
  for ((i = 1; i <= rounds; i++)); do
    local total cpu n
    total=$(cat "$out/$1.total.$2.$i")
    cpu=$(cpu_of "$out/$1.$2.$i")
    n=$(samples_of "$out/$1.$2.$i")
    awk -v t="$total" -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f\n", (n > 0 ? (t - c) / n / 1e3 : 0) }'
  done | median | awk '{ printf "%s us", $1 }'
}
rss() { for ((i = 1; i <= rounds; i++)); do cat "$out/$1.rss.$2.$i"; done | median |
  awk '{ printf "%.1f MiB", $1 / 1024 }'; }
row "workload CPU alone" alone
row "under the perf engine" target perf
row "under the BPF engine" target bpf
row "bystander, beside the perf engine" bystander perf
row "bystander, beside the BPF engine" bystander bpf
row "strobe CPU per sample, perf engine" per_sample perf
row "strobe CPU per sample, BPF engine" per_sample bpf
row "strobe peak RSS, perf engine" rss perf
row "strobe peak RSS, BPF engine" rss bpf
