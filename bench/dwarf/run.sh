#!/usr/bin/env bash
# -g dwarf, the whole pipeline: `strobe record -g dwarf` + `strobe report`
# against `perf record --call-graph dwarf` + `perf report`, on the same
# workload (fixture_deep_nofp: 2 busy threads, 32-frame stacks, no frame
# pointers), at the same rate (999 Hz) and stack copy (16 KiB).
#
# Post-processing CPU per sample, each tool's own CPU only (user+sys):
#   strobe: `strobe record` minus the workload (drain, unwind, symbolize,
#           write the recording) plus `strobe report`;
#   perf:   `perf record` minus the workload (copy the ring to perf.data)
#           plus `perf report` (which unwinds every sample).
# Each tool's CPU is counted by `perf stat --no-inherit -e task-clock`, which
# leaves out the children (the workload). Rounds are interleaved; medians are
# printed.
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

# CPU seconds of the command itself, not its children.
tm() {
  local out_file=$1
  shift
  perf stat --no-inherit -x, -e task-clock -o "$out_file" -- "$@"
}
cpu() { awk -F, '/task-clock/ {printf "%.4f", $1 / 1000}' "$1"; }

for ((i = 1; i <= rounds; i++)); do
  tm "$out/srec.time" "$strobe" record -F 999 -g dwarf,16384 -o "$out/s.db" -- \
    "$workload" "$units" "$loops" 2>"$out/srec.err" >/dev/null
  tm "$out/srep.time" "$strobe" report "$out/s.db" >/dev/null
  s_samples=$(sqlite3 "$out/s.db" "select count(*) from samples")
  s_lost=$(sqlite3 "$out/s.db" "select value from meta where key='lost_samples'")
  s_rec=$(cpu "$out/srec.time")
  s_rep=$(cpu "$out/srep.time")

  tm "$out/prec.time" perf record -q -F 999 --call-graph dwarf,16384 -o "$out/perf.data" -- \
    "$workload" "$units" "$loops" 2>"$out/prec.err" >/dev/null
  tm "$out/prep.time" perf report -i "$out/perf.data" --stdio >/dev/null 2>&1
  p_samples=$(perf report -i "$out/perf.data" --stats 2>/dev/null |
    awk '/SAMPLE events:/ {print $3; exit}')
  p_rec=$(cpu "$out/prec.time")
  p_rep=$(cpu "$out/prep.time")
  echo "$s_samples $s_lost $s_rec $s_rep $p_samples $p_rec $p_rep" >>"$out/rounds"
  echo "round $i: strobe $s_samples samples ($s_lost lost) record ${s_rec}s report ${s_rep}s;" \
    "perf $p_samples samples record ${p_rec}s report ${p_rep}s" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { awk -v c="$1" '{print $c}' "$out/rounds" | median; }
# Per-round CPU per sample, then the median over rounds.
s_us=$(awk '{print ($3 + $4) / $1 * 1e6}' "$out/rounds" | median)
p_us=$(awk '{print ($6 + $7) / $5 * 1e6}' "$out/rounds" | median)
awk -v ss="$(col 1)" -v sl="$(col 2)" -v sr="$(col 3)" -v sp="$(col 4)" -v ps="$(col 5)" \
  -v pr="$(col 6)" -v pp="$(col 7)" -v su="$s_us" -v pu="$p_us" -v r="$rounds" 'BEGIN {
  printf "| medians of %d rounds | strobe | perf |\n|---|---|---|\n", r;
  printf "| samples (lost) | %d (%d) | %d |\n", ss, sl, ps;
  printf "| recorder CPU beyond the workload | %.3f s | %.3f s |\n", sr, pr;
  printf "| report CPU | %.3f s | %.3f s |\n", sp, pp;
  printf "| post-processing CPU per sample | %.1f us | %.1f us |\n", su, pu;
  printf "| perf / strobe | %.1fx | |\n", pu / su;
}'
