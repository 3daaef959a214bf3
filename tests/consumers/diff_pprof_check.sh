#!/usr/bin/env bash
# Real-consumer test of strobe diff against Google's pprof (built from
# Debian's sources by tests/tools/build_pprof.sh): for two recordings,
#   A. `pprof -top -diff_base BASE.pb.gz NEW.pb.gz` of strobe report's own
#      pprof outputs,
#   B. `pprof -top` of strobe diff's pprof output (values new minus base),
#   C. strobe diff's own table (-f csv, its self change),
# agree on the five largest changes: the same flat values in nanoseconds
# (pprof -unit=ns), and the same functions for each value (functions with
# equal changes may come in another order: pprof breaks ties by name,
# strobe by total). Functions pprof names [module] (no symbol) are
# strobe's module+0xOFFSET rows. pprof marks a function inlined where it
# was sampled "NAME (inline)": strobe report's and strobe diff's pprof
# profiles both hold inline chains, so A and B must agree with that mark;
# strobe diff's table has no such mark, so C is compared by NAME alone.
# Pairs: two 30,000-sample synthetic recordings drawn from the same 2,000
# functions (strobe-synth --wide, another --seed), and, when the kernel
# lets strobe record, diff_work and its build with transform() doing 50%
# more work (tests/fixtures/diff_work.cpp) at 999 Hz.
# Usage: diff_pprof_check.sh BUILD_DIR
set -euo pipefail

build=$1
strobe=$build/strobe
work=$build/tests/consumers/diff_pprof
mkdir -p "$work"
pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")
fail=0

# "VALUE<TAB>NAME" for the first N non-header rows of pprof -top -unit=ns.
pprof_top() {
  awk 'f && NF >= 6 { v = $1; sub(/ns$/, "", v); name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name);
                      print v "\t" name }
       /^ +flat +flat%/ { f = 1 }'
}
# The same from strobe diff -f csv: self_change (column 10) and the name,
# an unresolved module+0xOFFSET as pprof names it, [module].
strobe_top() {
  awk -F, 'NR > 1 { name = $3; if (name ~ /\+0x[0-9a-f]+$/) { sub(/\+0x[0-9a-f]+$/, "", name); name = "[" name "]" }
                    print $10 "\t" name }'
}
# The five largest |values| and, for each distinct value among them, its
# names sorted: one line per value, "VALUE NAME|NAME...", all of the tie
# group whose value the fifth has.
groups() {
  awk -F'\t' '{ v = $1 + 0; a = v < 0 ? -v : v; if (a == 0) next; print a "\t" v "\t" $2 }' |
    sort -t "$(printf '\t')" -k1,1gr -k2,2g |
    awk -F'\t' 'n < 5 || $1 == last { n++; last = $1; names[$2] = names[$2] (names[$2] == "" ? "" : "|") $3;
                  if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
                END { for (i = 1; i <= k; i++) { m = split(names[order[i]], parts, "|")
                        for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (parts[y] < parts[x]) { t = parts[x]; parts[x] = parts[y]; parts[y] = t }
                        line = order[i] " "; for (x = 1; x <= m; x++) line = line (x > 1 ? "|" : "") parts[x]
                        print line } }'
}

compare_pair() {
  local label=$1 base=$2 next=$3
  "$strobe" report "$base" -o "$work/base.pb.gz"
  "$strobe" report "$next" -o "$work/new.pb.gz"
  "$strobe" diff "$base" "$next" -o "$work/diff.pb.gz"
  "$strobe" diff "$base" "$next" -f csv --top 0 > "$work/diff.csv"
  "$pprof" -top -unit=ns -nodecount=100 -nodefraction=0 -diff_base "$work/base.pb.gz" "$work/new.pb.gz" \
    > "$work/$label-diff-base.txt" 2>&1
  "$pprof" -top -unit=ns -nodecount=100 -nodefraction=0 "$work/diff.pb.gz" > "$work/$label-strobe-pprof.txt" 2>&1
  pprof_top < "$work/$label-diff-base.txt" | groups > "$work/$label-a.txt"
  pprof_top < "$work/$label-strobe-pprof.txt" | groups > "$work/$label-b.txt"
  pprof_top < "$work/$label-diff-base.txt" | sed 's/ (inline)$//' | groups > "$work/$label-a-names.txt"
  strobe_top < "$work/diff.csv" | groups > "$work/$label-c.txt"
  if [ ! -s "$work/$label-a.txt" ]; then
    echo "FAIL ($label): no changes in pprof -diff_base"; cat "$work/$label-diff-base.txt"; fail=1; return
  fi
  if cmp -s "$work/$label-a.txt" "$work/$label-b.txt" && cmp -s "$work/$label-a-names.txt" "$work/$label-c.txt"; then
    echo "ok ($label): pprof -diff_base, strobe's pprof diff and strobe diff agree on the five largest changes:"
    sed 's/^/  /' "$work/$label-a.txt"
  else
    echo "FAIL ($label): the five largest changes differ"
    echo "--- pprof -diff_base"; cat "$work/$label-a.txt"
    echo "--- pprof of strobe diff's pprof"; cat "$work/$label-b.txt"
    echo "--- strobe diff (names without pprof's inline mark)"; cat "$work/$label-c.txt"
    fail=1
  fi
}

"$build/strobe-synth" "$work/synth-a.db" 30000 --wide
"$build/strobe-synth" "$work/synth-b.db" 30000 --wide --seed=5
compare_pair synthetic "$work/synth-a.db" "$work/synth-b.db"

if "$strobe" record -F 999 -o "$work/base.db" -- "$build/tests/fixtures/diff_base/diff_work" \
     > "$work/record.txt" 2>&1 &&
   "$strobe" record -F 999 -o "$work/more.db" -- "$build/tests/fixtures/diff_more/diff_work" \
     >> "$work/record.txt" 2>&1; then
  compare_pair recorded "$work/base.db" "$work/more.db"
  if ! head -1 "$work/recorded-c.txt" | grep -q ' transform()$'; then
    echo "FAIL (recorded): transform() is not the largest change"; fail=1
  fi
else
  echo "SKIP (recorded pair): strobe record failed here:"; sed 's/^/  /' "$work/record.txt"
fi
exit $fail
