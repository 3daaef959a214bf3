#!/usr/bin/env bash
# The symbolization phase of a large many-module profile: a generated program
# linked against ten generated shared libraries (gen.sh: 300 functions each,
# templates and inline helpers, -O2 -g -fno-omit-frame-pointer) runs on two
# threads under `strobe record -F 10000` (about 100,000 samples, 50,000
# distinct locations in 17 modules). STROBE_TIMINGS=1 makes record print the
# CPU time (all threads, getrusage) and wall time of its symbolization phase,
# which is what `strobe report` on the recording then shows. The peer is perf
# on the same workload: `perf record -F 10000 -g`, then `perf report --stdio
# --sort sym,srcline` (its CPU time, task-clock, end to end; it runs once
# because it takes minutes).
# Usage: bench/many_modules/run.sh [BUILD_DIR] [ROUNDS] [WORK]
#   PERF_REPORT=0 skips the perf peer.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${2:-3}
work=${3:-5000}
here=$(cd "$(dirname "$0")" && pwd)
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$strobe" ] || { echo "$strobe is missing: build first" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: scripts/deps.sh bench" >&2; exit 1; }

"$here/gen.sh" "$out" 10 300
flags=(-O2 -g -fno-omit-frame-pointer)
echo "building 10 libraries, two at a time ..." >&2
for ((k = 0; k < 10; k += 2)); do
  c++ "${flags[@]}" -fPIC -shared -o "$out/lib$k.so" "$out/lib$k.cpp" &
  c++ "${flags[@]}" -fPIC -shared -o "$out/lib$((k + 1)).so" "$out/lib$((k + 1)).cpp" &
  wait
done
libs=()
for ((k = 0; k < 10; k++)); do libs+=("-l$k"); done
c++ "${flags[@]}" -o "$out/many" "$out/main.cpp" -L"$out" -Wl,-rpath,"$out" "${libs[@]}" -pthread

for ((i = 1; i <= rounds; i++)); do
  STROBE_TIMINGS=1 "$strobe" record -F 10000 -o "$out/s.db" -- "$out/many" "$work" 2 \
    >/dev/null 2>"$out/record.$i"
  t=$(grep 'strobe: timings: symbolization' "$out/record.$i")
  samples=$(grep 'strobe: recorded' "$out/record.$i" | grep -o '[0-9]* samples' | head -1 | cut -d' ' -f1)
  echo "$t" | awk -v s="$samples" '{
    for (i = 1; i <= NF; i++) {
      if ($i == "locations") loc = $(i - 1);
      if ($i == "modules:") mods = $(i - 1);
      if ($i == "CPU,") cpu = $(i - 2);
      if ($i == "wall") wall = $(i - 2);
    }
    print s, loc, mods, cpu, wall }' >>"$out/strobe"
  echo "round $i: $(tail -1 "$out/strobe") (samples locations modules cpu_ms wall_ms)" >&2
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
read -r samples locs mods < <(head -1 "$out/strobe" | awk '{print $1, $2, $3}')
cpu=$(awk '{print $4}' "$out/strobe" | median)
wall=$(awk '{print $5}' "$out/strobe" | median)
echo "strobe record: $samples samples, $locs locations, $mods modules"
echo "strobe symbolization phase: median of $rounds: ${cpu} ms CPU, ${wall} ms wall"

if [ "${PERF_REPORT:-1}" != 0 ]; then
  perf record -q -F 10000 -g -o "$out/perf.data" -- "$out/many" "$work" 2 >/dev/null 2>&1
  psamples=$(perf report -i "$out/perf.data" --stats 2>/dev/null | awk '/SAMPLE events/ {print $3; exit}')
  start=$(date +%s%N)
  perf stat -x, -e task-clock -o "$out/pstat" -- \
    perf report -i "$out/perf.data" --stdio --sort sym,srcline >"$out/perf.txt" 2>/dev/null
  end=$(date +%s%N)
  pcpu=$(awk -F, '/task-clock/ {printf "%.0f", $1}' "$out/pstat")
  echo "perf report --sort sym,srcline: $psamples samples, ${pcpu} ms CPU, $(((end - start) / 1000000)) ms wall"
  awk -v p="$pcpu" -v s="$cpu" 'BEGIN { printf "perf report / strobe symbolization: cpu %.0fx\n", p / s }'
fi
