#!/usr/bin/env bash
# strobe agent's HTTP endpoint read by Google's pprof: a fixture runs 6:3:1
# work; `strobe agent --http -a` samples the whole system; pprof fetches
# /debug/pprof/profile?seconds=3&pid=FIXTURE and its -top must show the
# split within 3 percentage points. Meanwhile a second scraper's request
# (by comm) gets its own profile (200, not 429), and its samples are the
# fixture's only; bad parameters get 400 with one line saying why; SIGINT
# stops the agent with status 0.
# Usage: agent_http_check.sh BUILD_DIR
set -euo pipefail
. "$(dirname "$0")/agent_check_lib.sh"

build=$(cd "$1" && pwd)
work=$(mktemp -d)
fixture=
agent=
cleanup() {
  [ -n "$fixture" ] && kill "$fixture" 2>/dev/null || true
  [ -n "$agent" ] && kill "$agent" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")

"$build/tests/fixtures/fixture_shares" 100000 1000000 &
fixture=$!
# 999 Hz: ~900 samples of the fixture in 3 s, so the split is within 3
# points of 6:3:1 by more than 3 standard deviations.
"$build/strobe" agent --http 127.0.0.1:0 -a -F 999 2> "$work/err" &
agent=$!
port=$(agent_port "$work/err")
url=http://127.0.0.1:$port/debug/pprof/profile

# A second scraper at the same time gets its own profile.
curl -s -o "$work/second.pb.gz" -w '%{http_code}' "$url?seconds=2&comm=fixture_shares" \
  > "$work/second.code" &
second=$!
PPROF_TMPDIR=$work HOME=$work "$pprof" -top "$url?seconds=3&pid=$fixture" > "$work/top.txt" 2>&1 ||
  { echo "FAIL: pprof could not fetch the profile"; cat "$work/top.txt" "$work/err"; exit 1; }
wait "$second"

fail=0
code=$(cat "$work/second.code")
[ "$code" = 200 ] || { echo "FAIL: a concurrent request got $code, not 200"; fail=1; }
HOME=$work "$pprof" -tags "$work/second.pb.gz" > "$work/tags.txt" 2>&1 ||
  { echo "FAIL: pprof cannot read the concurrent profile"; cat "$work/tags.txt"; fail=1; }
# comm=fixture_shares: every sample's comm and pid are the fixture's.
grep -q "fixture_shares" "$work/tags.txt" || { echo "FAIL: no comm label"; fail=1; }
# " pid: Total 454.5ms" then "      454.5ms (  100%): 16532" lines.
pids=$(awk '/^ *[a-z_]+: Total/ { in_pid = ($1 == "pid:"); next } in_pid && NF > 0 { print $NF }' "$work/tags.txt" | sort -u | tr '\n' ' ')
[ "$pids" = "$fixture " ] || { echo "FAIL: comm=fixture_shares holds pids '$pids', not '$fixture '"; fail=1; }
grep -q "^ *host: Total" "$work/tags.txt" || { echo "FAIL: no host label"; fail=1; }

check400() {
  local query=$1 want=$2 got
  got=$(curl -s -w ' %{http_code}' "$url?$query")
  [ "$got" = "$want
 400" ] || { echo "FAIL: ?$query got '$got', not '$want' 400"; fail=1; }
}
check400 "seconds=4000" "seconds must be at most 300"
check400 "seconds=0" "seconds must be a positive whole number"
check400 "seconds=2x" "seconds must be a positive whole number"
check400 "seconds=1&pid=-5" "pid must be a positive whole number"
check400 "seconds=1&comm=" "comm must be a process name of 1 to 15 bytes"

# "  555.56ms 62.50% 62.50%   555.56ms 62.50%  work_six()"
for pair in "work_six() 60" "work_three() 30" "work_one() 10"; do
  name=${pair% *}
  want=${pair##* }
  got=$(awk -v n="$name" '$6 == n { sub("%", "", $2); print $2 }' "$work/top.txt")
  if [ -z "$got" ] || awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d > 3 || d < -3) }'; then
    echo "FAIL: $name has ${got:-no} flat% (want $want +- 3)"
    fail=1
  fi
done

kill -INT "$agent"
status=0
wait "$agent" || status=$?
agent=
[ "$status" = 0 ] || { echo "FAIL: the agent exited $status after SIGINT"; fail=1; }
grep -q "^strobe: agent stopped: 2 profiles served" "$work/err" ||
  { echo "FAIL: no summary of 2 profiles served"; fail=1; }
if [ $fail -ne 0 ]; then
  cat "$work/top.txt" "$work/tags.txt" "$work/err"
  exit 1
fi
echo "ok: pprof -top of the agent's ?pid= profile shows 6:3:1; a concurrent ?comm= request got its own; bad parameters -> 400"
