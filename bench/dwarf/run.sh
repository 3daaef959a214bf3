#!/usr/bin/env bash
# -g dwarf, the whole pipeline: `strobe record -g dwarf` + `strobe report`
# against `perf record --call-graph dwarf` + `perf report`, on the same
# workload (fixture_deep_nofp: 2 busy threads, 32-frame stacks, no frame
# pointers), at the same rate (999 Hz) and stack copy (16 KiB).
#
# Post-processing CPU, each tool's own CPU only (user+sys):
#   strobe: `strobe record` minus the workload (drain, unwind, symbolize,
#           write the recording) plus `strobe report`;
#   perf:   `perf record` minus the workload (copy the ring to perf.data)
#           plus `perf report` (which unwinds every sample).
# Each tool's CPU is counted by `perf stat --no-inherit -e task-clock`, which
# leaves out the children (the workload). Every round runs a short and a long
# workload (LOOPS and 4 x LOOPS), so the table gives the cost per sample of
# each run and splits it into a fixed part (start-up, reading debug
# information, writing) and a marginal cost per extra sample:
#   marginal = (cost_long - cost_short) / (samples_long - samples_short).
# Rounds are interleaved; medians are printed.
# Usage: bench/dwarf/run.sh [BUILD_DIR] [ROUNDS] [UNITS] [LOOPS]
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
units=${3:-200000}
loops=${4:-300}
workload="$build/tests/fixtures/fixture_deep_nofp"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for tool in perf sqlite3; do
  command -v $tool >/dev/null || { echo "$tool is missing: scripts/deps.sh bench" >&2; exit 1; }
done

tm() {
  local out_file=$1
  shift
  perf stat --no-inherit -x, -e task-clock -o "$out_file" -- "$@"
}
cpu() { awk -F, '/task-clock/ {printf "%.4f", $1 / 1000}' "$1"; }

# One run of each tool on `loops`; appends "len samples lost cpu" per tool.
run_strobe() {
  local len=$1 n=$2
  tm "$out/srec.time" "$strobe" record -F 999 -g dwarf,16384 -o "$out/s.db" -- \
    "$workload" "$units" "$n" 2>"$out/srec.err" >/dev/null
  tm "$out/srep.time" "$strobe" report "$out/s.db" >/dev/null
  local samples lost
  samples=$(sqlite3 "$out/s.db" "select count(*) from samples")
  lost=$(sqlite3 "$out/s.db" "select value from meta where key='lost_samples'")
  echo "$len $samples $lost $(cpu "$out/srec.time") $(cpu "$out/srep.time")" >>"$out/strobe"
  echo "  strobe $len: $samples samples ($lost lost) record $(cpu "$out/srec.time")s" \
    "report $(cpu "$out/srep.time")s" >&2
}
run_perf() {
  local len=$1 n=$2
  tm "$out/prec.time" perf record -q -F 999 --call-graph dwarf,16384 -o "$out/perf.data" -- \
    "$workload" "$units" "$n" 2>"$out/prec.err" >/dev/null
  tm "$out/prep.time" perf report -i "$out/perf.data" --stdio >/dev/null 2>&1
  local samples
  samples=$(perf report -i "$out/perf.data" --stats 2>/dev/null |
    awk '/SAMPLE events:/ {print $3; exit}')
  echo "$len $samples 0 $(cpu "$out/prec.time") $(cpu "$out/prep.time")" >>"$out/perf"
  echo "  perf   $len: $samples samples record $(cpu "$out/prec.time")s" \
    "report $(cpu "$out/prep.time")s" >&2
}

for ((i = 1; i <= rounds; i++)); do
  echo "round $i" >&2
  run_strobe short "$loops"
  run_perf short "$loops"
  run_strobe long $((loops * 4))
  run_perf long $((loops * 4))
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# col TOOL LEN COLUMN: median of a column; cost TOOL LEN: median of record+report.
col() { awk -v l="$2" -v c="$3" '$1 == l {print $c}' "$out/$1" | median; }
cost() { awk -v l="$2" '$1 == l {print $4 + $5}' "$out/$1" | median; }
row() {
  local tool=$1
  local ns nl cs cl
  ns=$(col "$tool" short 2) nl=$(col "$tool" long 2)
  cs=$(cost "$tool" short) cl=$(cost "$tool" long)
  awk -v ns="$ns" -v nl="$nl" -v cs="$cs" -v cl="$cl" -v t="$tool" \
    -v rs="$(col "$tool" short 4)" -v ps="$(col "$tool" short 5)" \
    -v rl="$(col "$tool" long 4)" -v pl="$(col "$tool" long 5)" -v lost="$(col "$tool" long 3)" 'BEGIN {
    m = (cl - cs) / (nl - ns); f = cs - m * ns;
    printf "%s %d %d %.3f %.3f %.1f %.3f %.3f %.1f %.1f %.1f %d\n", t, ns, nl, rs, ps, cs / ns * 1e6, rl, pl, cl / nl * 1e6, f * 1e3, m * 1e6, lost
  }'
}
s=$(row strobe)
p=$(row perf)
echo "$s"$'\n'"$p" | awk -v r="$rounds" '
  { t[NR] = $0; for (i = 1; i <= NF; i++) v[NR, i] = $i }
  END {
    printf "| medians of %d rounds | strobe | perf | perf / strobe |\n|---|---|---|---|\n", r;
    printf "| short run: samples | %d | %d | |\n", v[1,2], v[2,2];
    printf "| short run: record CPU + report CPU | %.3f + %.3f s | %.3f + %.3f s | |\n", v[1,4], v[1,5], v[2,4], v[2,5];
    printf "| short run: post-processing CPU per sample | %.1f us | %.1f us | %.1fx |\n", v[1,6], v[2,6], v[2,6] / v[1,6];
    printf "| long run: samples (strobe lost) | %d (%d) | %d | |\n", v[1,3], v[1,12], v[2,3];
    printf "| long run: record CPU + report CPU | %.3f + %.3f s | %.3f + %.3f s | |\n", v[1,7], v[1,8], v[2,7], v[2,8];
    printf "| long run: post-processing CPU per sample | %.1f us | %.1f us | %.1fx |\n", v[1,9], v[2,9], v[2,9] / v[1,9];
    printf "| fixed cost (start-up, debug info, writing) | %.0f ms | %.0f ms | |\n", v[1,10], v[2,10];
    printf "| marginal cost per sample | %.1f us | %.1f us | %.1fx |\n", v[1,11], v[2,11], v[2,11] / v[1,11];
  }'
