#!/usr/bin/env bash
# Real-consumer test of the pprof writer: Google's pprof, built from
# Debian's packaged sources by tests/tools/build_pprof.sh, checks that
#   1. `pprof -top` agrees with `strobe report` within 0.5 percentage points
#      (flat% vs SELF%, cum% vs TOTAL%) for the top functions;
#   2. `pprof -raw` shows the inline chain helper <- compute as two lines of
#      one location;
#   3. `pprof -tags` sees the thread label;
#   4. the same agreement on a real recording of fixture_shares (skipped,
#      with the reason, when the kernel refuses to profile), whose comments
#      (pprof -comments) give the sampled CPU next to the command's own.
#   5. on a real recording of fixture_names (two lambdas on std::threads,
#      a function with a .part clone), `pprof -traces` shows no function
#      name twice in one stack (the fixture does not recurse): inlined
#      operator()s that DWARF names alike and clones calling their own
#      function must not read as recursion.
# Usage: pprof_check.sh BUILD_DIR
set -euo pipefail

build=$1
strobe=$build/strobe
synth=$build/strobe-synth
work=$build/tests/consumers/pprof
mkdir -p "$work"

pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")

"$synth" "$work/synth.db" 30000
"$strobe" report "$work/synth.db" --top 0 > "$work/strobe.txt"
"$strobe" report "$work/synth.db" -o "$work/synth.pb.gz"
"$pprof" -top -symbolize=none "$work/synth.pb.gz" > "$work/top.txt" 2>&1
"$pprof" -raw -symbolize=none "$work/synth.pb.gz" > "$work/raw.txt" 2>&1
"$pprof" -tags -symbolize=none "$work/synth.pb.gz" > "$work/tags.txt" 2>&1

fail=0
top=$work/top.txt
report=$work/strobe.txt
# strobe: " 50.0%   50.0%    15.02 s  NAME   LOCATION" -> NAME self total
# pprof:  "15.02s 50.00% 50.00%     15.02s 50.00%  NAME [(inline)]"
compare() {
  local name=$1
  local s p
  s=$(awk -v n="$name" 'index($0, "  " n "  ") { gsub("%", "", $1); gsub("%", "", $2); print $1, $2; exit }' "$report")
  p=$(awk -v n="$name" '{ line = $0; sub(/ \(inline\)$/, "", line) }
        substr(line, length(line) - length(n) + 1) == n && $2 ~ /%$/ {
          gsub("%", "", $2); gsub("%", "", $5); print $2, $5; exit }' "$top")
  if [ -z "$s" ] || [ -z "$p" ]; then
    echo "FAIL: $name: strobe '$s' pprof '$p'"
    fail=1
    return
  fi
  if ! awk -v s="$s" -v p="$p" 'BEGIN { split(s, a, " "); split(p, b, " ");
        d1 = a[1] - b[1]; d2 = a[2] - b[2]; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2;
        exit !(d1 <= 0.5 && d2 <= 0.5) }'; then
    echo "FAIL: $name: strobe self/total $s, pprof flat/cum $p (more than 0.5 pp apart)"
    fail=1
  else
    echo "ok: $name: strobe $s, pprof $p"
  fi
}
for f in 'synth::hot_loop()' 'synth::helper(int)' 'synth::compute(int)' 'worker_main(void*)' 'main' \
  '<script>alert(1)</script>&"'"'"; do
  compare "$f"
done

# An inline chain: a location line with helper, the next line compute.
if ! awk '/synth::helper\(int\)/ { getline nxt; if (nxt ~ /^ +synth::compute\(int\) .*compute.cpp:27/) found = 1 }
          END { exit !found }' "$work/raw.txt"; then
  echo "FAIL: pprof -raw shows no helper <- compute inline chain"; fail=1
else
  echo "ok: pprof -raw shows the inline chain"
fi
for t in main worker-1 worker-2; do
  if ! grep -q "$t" "$work/tags.txt"; then echo "FAIL: thread $t not in pprof -tags"; fail=1; fi
done
# A real recording: three functions with 60/30/10% of the CPU.
if "$strobe" record -F 999 -o "$work/real.db" -- "$build/tests/fixtures/fixture_shares" \
    > "$work/record.txt" 2>&1; then
  "$strobe" report "$work/real.db" --top 0 > "$work/real.txt"
  "$strobe" report "$work/real.db" -o "$work/real.pb.gz"
  "$pprof" -top -symbolize=none "$work/real.pb.gz" > "$work/real-top.txt" 2>&1
  top=$work/real-top.txt
  report=$work/real.txt
  for f in 'work_six()' 'work_three()' 'work_one()'; do compare "$f"; done
  # The sampled CPU next to the command's own, as strobe's report header has it.
  header=$(grep -o "CPU sampled: .* of the command's [^ ]* [a-z]*" "$work/real.txt" | head -1)
  "$pprof" -comments "$work/real.pb.gz" > "$work/comments.txt" 2>&1
  if [ -z "$header" ] || ! grep -qF "$header" "$work/comments.txt"; then
    echo "FAIL: pprof -comments lacks the report's '$header'"; cat "$work/comments.txt"; fail=1
  else
    echo "ok: pprof -comments: $header"
  fi
else
  echo "SKIP (real recording): strobe record failed here:"; sed 's/^/  /' "$work/record.txt"
fi

# 5. No name twice in one stack of pprof -traces. Each trace is a block
# between dashed lines: label lines ("    thread:  main"), then frames, the
# first after its value, all with the name from column 14; pprof's own
# names for unsymbolized frames (<unknown>, [module]) are not functions.
if "$strobe" record -F 1999 -o "$work/names.db" -- "$build/tests/fixtures/fixture_names" \
    > "$work/record-names.txt" 2>&1; then
  "$strobe" report "$work/names.db" -o "$work/names.pb.gz"
  "$pprof" -traces -symbolize=none "$work/names.pb.gz" > "$work/traces.txt" 2>&1
  if ! grep -q 'main::{lambda(int)#1}::operator()' "$work/traces.txt" ||
     ! grep -q 'main::{lambda(int)#2}::operator()' "$work/traces.txt" ||
     ! grep -q '_Invoker<.*>::operator()' "$work/traces.txt"; then
    echo "FAIL: pprof -traces lacks the lambdas or std::thread's invoker by their qualified names"
    fail=1
  fi
  if ! awk '
      /^-----------\+/ { delete seen; next }
      /^ *[A-Za-z_]+:  / { next }
      length($0) > 13 {
        name = substr($0, 14); sub(/ \(inline\)$/, "", name)
        if (name ~ /^[<[]/) next
        if (name in seen) { print "FAIL: " name " twice in one stack of pprof -traces"; bad = 1 }
        seen[name] = 1
      }
      END { exit bad }' "$work/traces.txt"; then
    fail=1
  else
    echo "ok: pprof -traces shows no function twice in one stack"
  fi
else
  echo "SKIP (names recording): strobe record failed here:"; sed 's/^/  /' "$work/record-names.txt"
fi

if [ $fail -ne 0 ]; then
  echo "--- pprof -top"; cat "$top"; echo "--- strobe report"; cat "$report"
  [ -f "$work/traces.txt" ] && { echo "--- pprof -traces"; cat "$work/traces.txt"; }
  exit 1
fi
echo "pprof agrees with strobe"
