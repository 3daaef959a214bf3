#!/usr/bin/env bash
# strobe agent with the BPF engine serves a CPython program's Python frames
# to Google's pprof: Debian's python3.11 runs tests/fixtures/python/
# shares.py (its own clock splits its CPU 50/20/30 between spin, churn and
# squeeze); `strobe agent --engine bpf -p PID` is scraped by pprof, whose
# -top -cum must list the three functions and <module>, spin's cumulative
# share of the three within 3 points of 50%. Skipped (77, with the reason)
# where BPF is refused or python3.11 is not installed.
# Usage: agent_python_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
. "$(dirname "$0")/agent_check_lib.sh"

build=$(cd "$1" && pwd)
script=$2/tests/fixtures/python/shares.py
python=/usr/bin/python3.11
[ -x "$python" ] || { echo "skipped: $python is not installed (apt install python3.11)"; exit 77; }
work=$(mktemp -d)
target=
agent=
cleanup() {
  [ -n "$target" ] && kill "$target" 2>/dev/null || true
  [ -n "$agent" ] && kill "$agent" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
if ! err=$("$build/strobe" record --engine bpf -o "$work/probe.db" -- /bin/true 2>&1 >/dev/null); then
  echo "skipped: the kernel refuses BPF here: $(head -1 <<<"$err")"
  exit 77
fi

pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")
"$python" "$script" 0.5 --until-killed > "$work/out" &
target=$!
wait_for 10 grep -q ready "$work/out" || { echo "FAIL: the script never got ready"; exit 1; }
"$build/strobe" agent --engine bpf --http 127.0.0.1:0 -p "$target" -F 999 2> "$work/err" &
agent=$!
port=$(agent_port "$work/err")
PPROF_TMPDIR=$work HOME=$work "$pprof" -top -cum \
  "http://127.0.0.1:$port/debug/pprof/profile?seconds=3" > "$work/top.txt" 2>&1 ||
  { echo "FAIL: pprof could not fetch the profile"; cat "$work/top.txt" "$work/err"; exit 1; }

# "  flat  flat%   sum%        cum   cum%" rows: the cum of each function.
cum() { awk -v fn="$1" '$6 == fn { v = $4; sub(/[a-z]+$/, "", v); u = $4; sub(/^[0-9.]+/, "", u);
  print (u == "s" ? v * 1000 : u == "us" ? v / 1000 : v); exit }' "$work/top.txt"; }
fail=0
for fn in spin churn squeeze '<module>'; do
  [ -n "$(cum "$fn")" ] || { echo "FAIL: pprof's -top -cum has no $fn"; fail=1; }
done
if [ "$fail" = 0 ]; then
  share=$(awk -v s="$(cum spin)" -v c="$(cum churn)" -v q="$(cum squeeze)" \
    'BEGIN { printf "%.1f", 100 * s / (s + c + q) }')
  awk -v v="$share" 'BEGIN { exit !(v >= 47 && v <= 53) }' ||
    { echo "FAIL: spin's share of the three is $share%, not 50 +- 3"; fail=1; }
fi
[ "$fail" = 0 ] || { cat "$work/top.txt" "$work/err"; exit 1; }
echo "ok: pprof shows spin at $share% of spin, churn and squeeze"
