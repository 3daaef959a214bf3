#!/usr/bin/env bash
# strobe symbolize against binutils addr2line, llvm-symbolizer and
# eu-addr2line: the same 20,000 random .text addresses of the large generated
# fixture (tests/symbolize, > 2 MB of .debug_info), end to end (process start,
# reading the file, answering on stdout), flags -a -f -i -C for all four.
# Rounds are interleaved so machine noise hits all tools alike; each round's
# CPU time (task-clock, from perf stat) and wall time (separate runs without
# perf: answers to a file, and to /dev/null, where the kernel's copy of the
# 17 MB of answers is left out) are recorded; medians are printed. eu-addr2line is about 100 times
# slower, so it runs once. STROBE_BENCH_INSTR=1 also counts user-space
# instructions of strobe and addr2line under callgrind (deterministic).
# Usage: bench/symbolize/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
bin="$build/tests/symbolize/symfix_large"
strobe="$build/strobe"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for tool in perf addr2line llvm-symbolizer eu-addr2line; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: scripts/deps.sh bench" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "$bin is missing: build with tests enabled" >&2; exit 1; }

# 20,000 addresses uniformly in .text, fixed seed.
read -r text_addr text_size < <(readelf -SW "$bin" | awk '$2 == ".text" {print $4, $6}')
awk -v a=$((16#$text_addr)) -v z=$((16#$text_size)) \
  'BEGIN { srand(20000); for (i = 0; i < 20000; i++) printf "0x%x\n", a + int(rand() * z) }' \
  >"$out/addrs"

declare -A cmd=(
  [strobe]="$strobe symbolize -a -f -i -C -e $bin"
  [addr2line]="addr2line -a -f -i -C -e $bin"
  [llvm-symbolizer]="llvm-symbolizer --output-style=GNU -a -f -i -C -e $bin"
  [eu-addr2line]="eu-addr2line -a -f -i -C -e $bin"
)

# One round of a tool: "cpu_ms wall_ms null_ms". CPU time is perf's
# task-clock of one run; wall times are runs without perf (perf stat's own
# start-up adds about 35 ms of wall time, which would hide most of a fast
# tool's): one writing the answers to a file, as a user's redirection does,
# one writing them to /dev/null.
# Clocks are read from bash's EPOCHREALTIME: a `date` process per reading
# would add its own start-up, a few ms, to every figure.
run() {
  local start mid end cpu
  perf stat -x, -e task-clock -o "$out/stat" -- $1 <"$out/addrs" >"$out/answer.$2"
  cpu=$(awk -F, '/task-clock/ {printf "%.1f", $1}' "$out/stat")
  start=${EPOCHREALTIME/./}
  $1 <"$out/addrs" >"$out/answer.$2"
  mid=${EPOCHREALTIME/./}
  $1 <"$out/addrs" >/dev/null
  end=${EPOCHREALTIME/./}
  echo "$cpu $(((mid - start) / 1000)) $(((end - mid) / 1000))"
}

tools=(strobe addr2line llvm-symbolizer)
for ((i = 1; i <= rounds; i++)); do
  for t in "${tools[@]}"; do
    echo "$t $(run "${cmd[$t]}" "$t")" >>"$out/times"
  done
  echo "round $i done" >&2
done
echo "eu-addr2line $(run "${cmd[eu-addr2line]}" eu-addr2line)" >>"$out/times"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-16s %12s %12s %16s %s\n' tool "cpu ms" "wall ms" "wall ms to null" "runs"
for t in strobe addr2line llvm-symbolizer eu-addr2line; do
  cpu=$(awk -v t="$t" '$1 == t {print $2}' "$out/times" | median)
  wall=$(awk -v t="$t" '$1 == t {print $3}' "$out/times" | median)
  null=$(awk -v t="$t" '$1 == t {print $4}' "$out/times" | median)
  n=$(awk -v t="$t" '$1 == t' "$out/times" | wc -l)
  printf '%-16s %12s %12s %16s %s\n' "$t" "$cpu" "$wall" "$null" "$n"
  echo "$t $cpu $wall $null" >>"$out/medians"
done
awk '{cpu[$1] = $2; wall[$1] = $3; null[$1] = $4} END {
  for (t in cpu) if (t != "strobe")
    printf "%s / strobe: cpu %.1fx, wall %.1fx, wall to /dev/null %.1fx\n", t,
      cpu[t] / cpu["strobe"], wall[t] / wall["strobe"], null[t] / null["strobe"] }' \
  "$out/medians"
differing=$(diff "$out/answer.strobe" "$out/answer.addr2line" | grep -c '^<' || true)
echo "output lines differing from addr2line: $differing of $(wc -l <"$out/answer.addr2line")"
if [ "${STROBE_BENCH_INSTR:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
  for t in strobe addr2line; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.$t" ${cmd[$t]} <"$out/addrs" \
      >/dev/null 2>"$out/cg.err.$t"
    printf '%-16s %s instructions\n' "$t" "$(awk '/refs:/ {print $NF}' "$out/cg.err.$t")"
  done
fi
