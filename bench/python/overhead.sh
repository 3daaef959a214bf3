#!/usr/bin/env bash
# What recording a CPython program costs it: bench/python/fixed_work.py
# (a fixed amount of Python work) alone, under `strobe record --engine bpf`
# (Python frames read at each sample) and under `strobe record --engine
# perf` (native frames only), at 99 and 999 Hz, in interleaved rounds; the
# interpreter's own CPU (user + system, from /usr/bin/time inside the
# recording), medians, and each case's increase over the bare run.
# Usage: bench/python/overhead.sh BUILD [ROUNDS] [PYTHON]
set -euo pipefail
build=$1
rounds=${2:-5}
python=${3:-/usr/bin/python3.11}
here=$(cd "$(dirname "$0")" && pwd)
strobe=$(realpath "$build/strobe")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
work=("$python" "$here/fixed_work.py" 300)

one() {  # NAME STROBE-ARGS... (none: bare)
  local name=$1
  shift
  if [ $# -eq 0 ]; then
    /usr/bin/time -f "%U %S" -o "$out/t" "${work[@]}"
  else
    "$strobe" record "$@" -o "$out/r.db" -- /usr/bin/time -f "%U %S" -o "$out/t" "${work[@]}" \
      2>/dev/null
  fi
  awk '{print $1 + $2}' "$out/t" >>"$out/$name"
}
cases=(bare bpf99 bpf999 perf99 perf999)
for i in $(seq "$rounds"); do
  one bare
  one bpf99 --engine bpf -F 99
  one bpf999 --engine bpf -F 999
  one perf99 --engine perf -F 99
  one perf999 --engine perf -F 999
  echo "round $i done" >&2
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
base=$(median "$out/bare")
echo "$("$python" --version 2>&1), $rounds rounds: the interpreter's CPU (median)"
for c in "${cases[@]}"; do
  m=$(median "$out/$c")
  awk -v c="$c" -v m="$m" -v b="$base" 'BEGIN { printf "%-8s %7.3f s  %+6.2f%%\n", c, m, 100 * (m - b) / b }'
done
