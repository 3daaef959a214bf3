#!/usr/bin/env bash
# A perf.data's report: `strobe report perf.data` against `perf report
# --stdio` on the same files, each tool's CPU (user + system, of it and of
# every process it starts: perf report runs addr2line helpers) and largest
# resident set, counted by tree_usage (bench/perfdata/tree_usage.cpp).
#
# The recordings, each of `g++ -O2 -c` of a file that includes a dozen
# standard headers (gcc_input.cpp: about 3-4 s of cc1plus) at 999 Hz:
#   dwarf  perf record --call-graph dwarf
#   fp     perf record -g
#   fp3    perf record -g of three such compiles in a row (a longer -g run)
# with HOME in a scratch folder so that perf's build-id cache (~/.debug,
# which both tools read) is this run's own. Rounds are interleaved (perf,
# strobe, perf, ...); medians are printed, and their ratios.
# Usage: bench/perfdata/run.sh [BUILD_DIR] [ROUNDS] [RECORDINGS...]
#        (RECORDINGS: some of dwarf fp fp3, default all)
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
shift $(($# < 2 ? $# : 2))
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(dwarf fp fp3)
here=$(cd "$(dirname "$0")" && pwd)
strobe=$(realpath "$build/strobe")
usage=$(realpath "$build/bench/bench_tree_usage")
for tool in perf g++; do
  command -v $tool >/dev/null || { echo "$tool is missing: scripts/deps.sh bench" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export HOME=$out/home
mkdir -p "$HOME"
cd "$out"

record() {  # NAME CALL-GRAPH-OPTIONS...
  local name=$1 try
  shift
  # perf 6.1 on newer kernels at times aborts while it collects the
  # build-ids at the end (a stack overflow in its build-id code; for
  # minutes, then not): try again.
  local compiles=1
  [ "$name" != fp3 ] || compiles=3
  local cmd="for i in \$(seq $compiles); do g++ -O2 -c '$here/gcc_input.cpp' -o /dev/null; done"
  for try in $(seq 10); do
    if perf record -q -F 999 "$@" -o "$name.data" -- sh -c "$cmd" 2>/dev/null; then
      break
    fi
    [ "$try" != 10 ] || { echo "perf record failed 10 times" >&2; exit 1; }
    sleep 5
  done
  local samples
  samples=$(perf report -i "$name.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
  echo "$name.data: $(du -h "$name.data" | cut -f1), $samples samples" >&2
}
for name in "${kinds[@]}"; do
  case $name in
    dwarf) record dwarf --call-graph dwarf ;;
    fp | fp3) record "$name" -g ;;
    *) echo "unknown recording $name: dwarf, fp or fp3" >&2; exit 2 ;;
  esac
done

# "cpu_s=... max_rss_kb=..." of one run.
measure() {  # OUT-FILE CMD...
  local file=$1
  shift
  "$usage" "$@" >/dev/null 2>"$out/usage.err" || { cat "$out/usage.err" >&2; exit 1; }
  tail -1 "$out/usage.err" | tr ' ' '\n' | awk -F= '/cpu_s|max_rss_kb/ {printf "%s ", $2}' >>"$file"
  echo >>"$file"
}
for i in $(seq "$rounds"); do
  for name in "${kinds[@]}"; do
    measure "$out/perf.$name" perf report -i "$name.data" --stdio
    measure "$out/strobe.$name" "$strobe" report "$name.data"
  done
  echo "round $i done" >&2
done

median() {  # FILE COLUMN
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
printf '%-6s %12s %12s %8s %14s %14s %8s\n' "" "perf CPU s" "strobe CPU s" "ratio" "perf RSS MB" \
  "strobe RSS MB" "ratio"
for name in "${kinds[@]}"; do
  pc=$(median "$out/perf.$name" 1) sc=$(median "$out/strobe.$name" 1)
  pm=$(median "$out/perf.$name" 2) sm=$(median "$out/strobe.$name" 2)
  awk -v n="$name" -v pc="$pc" -v sc="$sc" -v pm="$pm" -v sm="$sm" 'BEGIN {
    printf "%-6s %12.3f %12.3f %7.1fx %14.1f %14.1f %7.1fx\n", n, pc, sc, pc / sc, pm / 1024,
      sm / 1024, pm / sm }'
done
