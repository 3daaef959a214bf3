#!/usr/bin/env bash
# strobe agent --push against a local receiver (push_receiver.py, standing in
# for Pyroscope's POST /ingest): each push carries name=APP{host=...,env=test},
# from/until one interval apart, format=pprof, sampleRate, spyName=strobe and
# a body Google's pprof reads (with the fixture's functions). Then the
# receiver goes down for a minute (60 intervals): the agent keeps at most
# --push-queue profiles (it logs each one it drops, with the count), its
# memory stays where it was, and once the receiver is back it pushes again
# (and says so, with the queue's length and the dropped count).
# The agent profiles the fixture alone (-p), so that what it names, and so
# its memory, does not depend on what else the machine runs; the fixture
# (offcpu: a fifth of a core, in burn() and three ways of waiting) runs at
# nice 19, so the test need not run alone. Its pushes are the size of a
# busier program's (about 1 KiB each, as fixture_shares' two busy threads
# give), for a fifth of the CPU time over the minute.
# Usage: agent_push_check.sh BUILD_DIR [plain|asan]  (asan: the outage lasts
# 8 intervals and RSS is not checked: that build is there to check the
# queue's memory accesses, which 5 drops exercise as 57 do)
set -euo pipefail
. "$(dirname "$0")/agent_check_lib.sh"

build=$(cd "$1" && pwd)
variant=${2:-plain}
outage=60
min_dropped=50
if [ "$variant" = asan ]; then
  outage=8
  min_dropped=3
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
fixture=
agent=
receiver=
cleanup() {
  [ -n "$fixture" ] && kill "$fixture" 2>/dev/null || true
  [ -n "$agent" ] && kill "$agent" 2>/dev/null || true
  [ -n "$receiver" ] && kill "$receiver" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
command -v python3 >/dev/null || { echo "FAIL: python3 is missing (scripts/deps.sh test installs it)"; exit 1; }

pprof=$("$here/../tools/build_pprof.sh" "$build")

pushes() { ls "$1" 2>/dev/null | grep -c '\.meta$' || true; }
at_least() { [ "$(pushes "$1")" -ge "$2" ]; }

mkdir "$work/up1" "$work/up2"
python3 "$here/push_receiver.py" "$work/up1" &
receiver=$!
wait_for 10 test -s "$work/up1/port" || { echo "FAIL: the receiver did not start"; exit 1; }
port=$(cat "$work/up1/port")

nice -n 19 "$build/tests/fixtures/fixture_offcpu" 600 > /dev/null &
fixture=$!
"$build/strobe" agent --push "http://127.0.0.1:$port" --app strobe.test --label env=test \
  --interval 1s --push-queue 3 -F 999 -p "$fixture" 2> "$work/err" &
agent=$!

fail=0
wait_for 30 at_least "$work/up1" 3 ||
  { echo "FAIL: fewer than 3 pushes arrived"; cat "$work/err"; exit 1; }
host=$(hostname)
for i in 0 1 2; do
  query=$(sed -n 1p "$work/up1/$i.meta")
  ctype=$(sed -n 2p "$work/up1/$i.meta")
  [ "$ctype" = application/octet-stream ] || { echo "FAIL: push $i has Content-Type '$ctype'"; fail=1; }
  # /ingest?name=strobe.test%7Bhost%3DH%2Cenv%3Dtest%7D&from=F&until=U&format=pprof&sampleRate=99&spyName=strobe
  name=$(python3 -c 'import sys, urllib.parse as u; q = u.parse_qs(u.urlsplit(sys.argv[1]).query); print(q["name"][0], int(q["until"][0]) - int(q["from"][0]), q["format"][0], q["sampleRate"][0], q["spyName"][0], u.urlsplit(sys.argv[1]).path)' "$query")
  [ "$name" = "strobe.test{host=$host,env=test} 1 pprof 999 strobe /ingest" ] ||
    { echo "FAIL: push $i: '$query' parsed as '$name'"; fail=1; }
  HOME=$work "$pprof" -top "$work/up1/$i.body" > "$work/top$i.txt" 2>&1 ||
    { echo "FAIL: pprof cannot read push $i"; cat "$work/top$i.txt"; fail=1; }
done
grep -qE '[[:space:]]burn$' "$work/top2.txt" || { echo "FAIL: push 2 lacks burn"; cat "$work/top2.txt"; fail=1; }

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$agent/status"; }
rss_before=$(rss)
kill "$receiver"
wait "$receiver" 2>/dev/null || true
receiver=
# Down for a minute: the queue (3) overflows; memory must not follow.
rss_max=$rss_before
for _ in $(seq "$outage"); do
  sleep 1
  r=$(rss)
  [ "$r" -gt "$rss_max" ] && rss_max=$r
done
grep -q "cannot push to http://127.0.0.1:$port" "$work/err" || { echo "FAIL: no push failure logged"; fail=1; }
dropped=$(sed -n 's/.*push queue full (3 profiles): dropped the oldest, .*; \([0-9]*\) dropped so far$/\1/p' "$work/err" | tail -1)
[ -n "$dropped" ] && [ "$dropped" -ge "$min_dropped" ] ||
  { echo "FAIL: dropped '${dropped:-none}', want >= $min_dropped logged"; fail=1; }
# Three queued profiles are tens of KiB, and the fixture's modules were
# named before the outage: over a minute of it, RSS may move by malloc's
# noise, not by the ~60 profiles made (4 MiB).
if [ "$variant" = asan ]; then
  echo "note: RSS ($rss_before -> $rss_max KiB) not checked in the ASan build: its quarantine keeps freed memory"
else
  [ $((rss_max - rss_before)) -le 4096 ] ||
    { echo "FAIL: RSS grew from $rss_before to $rss_max KiB while the receiver was down"; fail=1; }
fi

python3 "$here/push_receiver.py" "$work/up2" "$port" &
receiver=$!
wait_for 30 at_least "$work/up2" 4 || { echo "FAIL: the agent did not resume pushing"; fail=1; }
grep -q "pushing to http://127.0.0.1:$port again after [0-9]* failed attempts; queue [0-3]/3, [0-9]* profiles dropped so far" "$work/err" ||
  { echo "FAIL: the recovery was not logged"; fail=1; }
for f in "$work"/up2/*.body; do
  HOME=$work "$pprof" -top "$f" > "$work/top-after.txt" 2>&1 ||
    { echo "FAIL: pprof cannot read $f"; cat "$work/top-after.txt"; fail=1; }
done

kill -TERM "$agent"
status=0
wait "$agent" || status=$?
agent=
[ "$status" = 0 ] || { echo "FAIL: the agent exited $status after SIGTERM"; fail=1; }
if [ $fail -ne 0 ]; then
  cat "$work/err"
  exit 1
fi
echo "ok: pushes carry Pyroscope's parameters and pprof bodies; outage: dropped $dropped (queue 3), RSS $rss_before -> $rss_max KiB; resumed"
