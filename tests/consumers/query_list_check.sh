#!/usr/bin/env bash
# strobe query prints tab-separated rows (or JSON) and refuses writes;
# strobe list shows recordings newest first and skips other .db files.
# Usage: query_list_check.sh BUILD_DIR
set -euo pipefail
build=$1
work=$build/tests/consumers/query_list
rm -rf "$work" && mkdir -p "$work"
strobe=$build/strobe
"$build/strobe-synth" "$work/a.db" 300 --start=1700000000
"$build/strobe-synth" "$work/b.db" 60 --start=1700000100
echo "not a recording" > "$work/other.db"

out=$("$strobe" query "$work/a.db" "SELECT tid, count(*) AS n FROM samples GROUP BY tid ORDER BY tid")
want=$'tid\tn\n1000\t100\n1001\t100\n1002\t100'
[ "$out" = "$want" ] || { echo "FAIL: query TSV:"; echo "$out"; exit 1; }
json=$("$strobe" query "$work/a.db" "SELECT name FROM functions WHERE system_name = 'hostile'" --json)
[ "$json" = '[{"name":"<script>alert(1)</script>&\"'"'"'"}]' ] || { echo "FAIL: query --json: $json"; exit 1; }
if "$strobe" query "$work/a.db" "DELETE FROM samples" 2>"$work/err"; then
  echo "FAIL: a write succeeded"; exit 1
fi
grep -q "attempt to write a readonly database" "$work/err"

list=$("$strobe" list "$work")
echo "$list"
[ "$(echo "$list" | head -1 | awk '{print $1, $2, $3, $4, $5}')" = "FILE START DURATION SAMPLES COMMAND" ]
echo "$list" | grep -q "^a.db .* 300  /opt/synth/bin/synth --work 1$"
echo "$list" | grep -q "^b.db .* 60  /opt/synth/bin/synth --work 1$"
! echo "$list" | grep -q other.db
[ "$(echo "$list" | sed -n 2p | cut -d' ' -f1)" = b.db ] || { echo "FAIL: b.db is newer"; exit 1; }
echo "query and list behave"
