#!/usr/bin/env bash
# Off-CPU recording on a program that switches ~100,000 times a second:
# pingpong alone, under `strobe record --off-cpu` and under
# `perf record -e sched:sched_switch -g` (or `-e cs -c 1 -g` where the
# tracepoint is unavailable), in interleaved rounds so machine noise hits all
# three alike. pingpong reports its own elapsed and CPU time and its context
# switches (getrusage); the slowdown is what each recorder adds to it. Also
# the switch records each lost, and the size of what each wrote.
# Usage: bench/offcpu/run.sh [BUILD_DIR] [ROUNDS] [PINGPONG_ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
pp_rounds=${3:-250000}
workload="$build/bench/bench_offcpu_pingpong"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v perf >/dev/null || { echo "perf is missing: scripts/deps.sh bench" >&2; exit 1; }

peer=(-e sched:sched_switch -g)
if ! perf record -q "${peer[@]}" -o "$out/probe.data" -- true 2>/dev/null; then
  peer=(-e cs -c 1 -g)
fi

field() { grep -o "$2=[0-9]*" "$1" | head -1 | cut -d= -f2; }

for ((i = 1; i <= rounds; i++)); do
  "$workload" "$pp_rounds" 2>"$out/base.$i"
  "$strobe" record --off-cpu -o "$out/s.db" -- "$workload" "$pp_rounds" 2>"$out/strobe.$i" >/dev/null
  stat -c %s "$out/s.db" >"$out/strobe-size.$i"
  perf record -q "${peer[@]}" -o "$out/perf.data" -- "$workload" "$pp_rounds" 2>"$out/perf.$i" >/dev/null
  stat -c %s "$out/perf.data" >"$out/perf-size.$i"
  perf report -i "$out/perf.data" --stats 2>/dev/null | awk '/LOST events/ {print $NF}' >"$out/perf-lost.$i" || true
  echo "round $i: elapsed base $(field "$out/base.$i" pingpong_elapsed_ns)" \
    "strobe $(field "$out/strobe.$i" pingpong_elapsed_ns) perf $(field "$out/perf.$i" pingpong_elapsed_ns)" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
med() {  # median of field $2 over files $1.N
  for ((i = 1; i <= rounds; i++)); do field "$out/$1.$i" "$2"; done | median
}
medfile() { for ((i = 1; i <= rounds; i++)); do cat "$out/$1.$i"; done | median; }

be=$(med base pingpong_elapsed_ns); bc=$(med base pingpong_cpu_ns)
se=$(med strobe pingpong_elapsed_ns); sc=$(med strobe pingpong_cpu_ns)
pe=$(med perf pingpong_elapsed_ns); pc=$(med perf pingpong_cpu_ns)
sw=$(med base switches)
# strobe: "N switch records lost" in its summary; the pairing's own count.
slost=$(for ((i = 1; i <= rounds; i++)); do
  grep -o '[0-9]* switch records lost' "$out/strobe.$i" | cut -d' ' -f1; done | median)
plost=$(medfile perf-lost); plost=${plost:-0}
ssize=$(medfile strobe-size); psize=$(medfile perf-size)

awk -v be="$be" -v bc="$bc" -v se="$se" -v sc="$sc" -v pe="$pe" -v pc="$pc" -v sw="$sw" \
    -v r="$rounds" -v sl="$slost" -v pl="$plost" -v ss="$ssize" -v ps="$psize" \
    -v peer="perf record ${peer[*]}" 'BEGIN {
  printf "| median of %d rounds | elapsed | CPU (user+sys) | switch records lost | written |\n", r;
  printf "|---|---|---|---|---|\n";
  printf "| pingpong alone (%d switches, %.0f per second) | %.2f s | %.2f s | | |\n",
    sw, sw / (be / 1e9), be / 1e9, bc / 1e9;
  printf "| under `strobe record --off-cpu` | %.2f s (x%.2f) | %.2f s (x%.2f) | %d (%.2f%%) | %.1f MB |\n",
    se / 1e9, se / be, sc / 1e9, sc / bc, sl, 100 * sl / sw, ss / 1e6;
  printf "| under `%s` | %.2f s (x%.2f) | %.2f s (x%.2f) | %d | %.1f MB |\n",
    peer, pe / 1e9, pe / be, pc / 1e9, pc / bc, pl, ps / 1e6;
  printf "| strobe added / perf added | %.2f | %.2f | | |\n", (se - be) / (pe - be), (sc - bc) / (pc - bc);
}'
