#!/usr/bin/env bash
# A CI gate with strobe diff: record the previous build and the new one a
# few times each, compare them, and fail when the total or any function is
# slower by more than a percentage beyond the noise the runs show. Writes
# the compare page (diff.html) for a person to look at when it fails.
# Usage: check_regression.sh OLD_PROGRAM NEW_PROGRAM [RUNS] [PCT] [STROBE]
#   e.g. examples/ci/check_regression.sh build/examples/ci/v1/parser \
#          build/examples/ci/v2/parser
# Exit status: 0 no regression, 7 slower by more than PCT (one line per
# offender on stderr, as strobe diff prints them), anything else an error.
set -euo pipefail
old=$1 new=$2 runs=${3:-3} pct=${4:-5}
strobe=${5:-$(command -v strobe || echo build/strobe)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
base=() next=()
for i in $(seq 1 "$runs"); do
  # The two builds at once: on a shared machine the CPU the same work takes
  # moves by several percent from one second to the next, and both sides
  # then see the same machine.
  "$strobe" record -F 999 -o "$out/old$i.db" -- "$old" > "$out/old.txt" 2>&1 & old_pid=$!
  "$strobe" record -F 999 -o "$out/new$i.db" -- "$new" > "$out/new.txt" 2>&1 & new_pid=$!
  wait $old_pid || { cat "$out/old.txt" >&2; exit 1; }
  wait $new_pid || { cat "$out/new.txt" >&2; exit 1; }
  base+=("$out/old$i.db") next+=("$out/new$i.db")
done
status=0
"$strobe" diff "${base[@]}" --vs "${next[@]}" --top 10 --fail-on-slower "$pct" || status=$?
"$strobe" diff "${base[@]}" --vs "${next[@]}" -o diff.html
exit $status
