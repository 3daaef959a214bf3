#!/usr/bin/env bash
# Google's pprof reads strobe's sample types and units as the recording has
# them (docs/USAGE.md, "Off-CPU and wall time"; #16 "Units follow the event"):
#   1. a recording with off-CPU time has the sample types cpu, off-cpu and
#      wall, `-sample_index` switches between them, and each total equals
#      strobe's own for that view; the default is the view's;
#   2. `record -e page-faults` is counted in faults (Type: page-faults, no
#      nanoseconds), the total equal to strobe's;
#   3. libstrobe's wall mode is wall time (Type: wall), its text report says
#      "wall sampled", never "CPU sampled" or "(events)".
# Usage: pprof_units_check.sh BUILD_DIR
set -euo pipefail

build=$1
strobe=$build/strobe
work=$build/tests/consumers/pprof_units
mkdir -p "$work"
pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# pprof's "Showing nodes accounting for X, 100% of TOTAL total" with -unit
# forced: the total as an integer.
ptotal() { sed -n 's/.* of \([0-9.]*\)\(ns\)\{0,1\} total.*/\1/p' "$1" | head -1; }
# strobe's total for a view, from its json (total_ns or total_count).
stotal() {
  "$strobe" report "$1" -f json "${@:2}" | grep -o '"total_\(ns\|count\)":[0-9]*' | head -1 | cut -d: -f2
}

# 1. off-CPU: three sample types, one default.
"$build/strobe-synth" "$work/off.db" 6000 --off-cpu
"$strobe" report "$work/off.db" -o "$work/off.pb.gz"
"$pprof" -top -symbolize=none -unit=ns "$work/off.pb.gz" > "$work/default.txt" 2>&1
if grep -q '^Type: wall$' "$work/default.txt"; then ok "the default sample type is wall"; else
  bad "default type: $(grep '^Type' "$work/default.txt")"; fi
for view in cpu off-cpu wall; do
  "$pprof" -top -symbolize=none -unit=ns -sample_index="$view" "$work/off.pb.gz" > "$work/$view.txt" 2>&1
  p=$(ptotal "$work/$view.txt")
  s=$(stotal "$work/off.db" --view "$view")
  if grep -q "^Type: $view\$" "$work/$view.txt" && [ -n "$p" ] && [ "$p" = "$s" ]; then
    ok "-sample_index=$view: Type: $view, total $p ns = strobe --view $view"
  else
    bad "-sample_index=$view: $(grep '^Type' "$work/$view.txt"), pprof total '$p', strobe '$s'"
  fi
done
# worker-2's second half is off CPU: its share of off-cpu is all of it.
if awk '/synth::|worker_main/ {found = 1} END {exit !found}' "$work/off-cpu.txt"; then
  ok "the off-cpu sample type has worker-2's stacks"
else
  bad "no stacks in -sample_index=off-cpu"
fi

# 2. page-faults: counts, not nanoseconds.
if "$strobe" record -e page-faults -c 1 -o "$work/pf.db" -- "$build/tests/fixtures/fixture_shares" \
    > "$work/pf-record.txt" 2>&1; then
  "$strobe" report "$work/pf.db" -o "$work/pf.pb.gz"
  "$pprof" -top -symbolize=none "$work/pf.pb.gz" > "$work/pf.txt" 2>&1
  p=$(ptotal "$work/pf.txt")
  s=$(stotal "$work/pf.db")
  if grep -q '^Type: page-faults$' "$work/pf.txt" && ! grep -q '[0-9]ns\b\|[0-9]s total' "$work/pf.txt" &&
      [ -n "$p" ] && [ "$p" = "$s" ]; then
    ok "page-faults: Type: page-faults, $p faults = strobe's"
  else
    bad "page-faults: $(grep -E '^Type|total' "$work/pf.txt" | tr '\n' ' '), strobe '$s'"
  fi
else
  echo "SKIP (page-faults): strobe record failed here:"; sed 's/^/  /' "$work/pf-record.txt"
fi

# 3. libstrobe's wall mode.
env LD_PRELOAD="$build/libstrobe.so" STROBE_MODE=wall STROBE_OUTPUT="$work/wall.pb.gz" \
  "$build/tests/fixtures/fixture_shares" > /dev/null 2>&1
env LD_PRELOAD="$build/libstrobe.so" STROBE_MODE=wall STROBE_OUTPUT="$work/wall.txt" \
  "$build/tests/fixtures/fixture_shares" > /dev/null 2>&1
"$pprof" -top -symbolize=none "$work/wall.pb.gz" > "$work/wall-top.txt" 2>&1 || true
if grep -q '^Type: wall$' "$work/wall-top.txt"; then ok "libstrobe wall mode: Type: wall"; else
  bad "libstrobe wall mode: $(grep '^Type' "$work/wall-top.txt")"; fi
if grep -q 'wall sampled:' "$work/wall.txt" && ! grep -q 'CPU sampled\|(events)' "$work/wall.txt"; then
  ok "libstrobe wall mode's text report says wall sampled"
else
  bad "libstrobe wall mode's text report:"; sed 's/^/  /' "$work/wall.txt" | head -8
fi

exit $fail
