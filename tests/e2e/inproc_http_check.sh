#!/usr/bin/env bash
# libstrobe's HTTP endpoint read by Google's pprof: an unmodified fixture
# runs 6:3:1 work under LD_PRELOAD=libstrobe.so with STROBE_HTTP; pprof
# fetches /debug/pprof/profile?seconds=3 and its -top must show the split
# within 4 percentage points. Meanwhile a second request gets 429 and
# seconds=4000 gets 400. pprof is built from Debian's Go sources and cached
# in BUILD_DIR/tools by tests/tools/build_pprof.sh.
# Usage: inproc_http_check.sh BUILD_DIR
set -euo pipefail

build=$(cd "$1" && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

pprof=$("$(dirname "$0")/../tools/build_pprof.sh" "$build")

# STROBE_ASAN_PRELOAD: the ASan runtime first, in a sanitizer build.
env LD_PRELOAD="${STROBE_ASAN_PRELOAD:-}$build/libstrobe.so" STROBE_HTTP=127.0.0.1:0 \
  "$build/tests/fixtures/fixture_shares" 100000 1000000 2> "$work/err" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/^strobe: serving .* on port \([0-9]*\)$/\1/p' "$work/err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: no port announced"; cat "$work/err"; exit 1; }
url=http://127.0.0.1:$port/debug/pprof/profile

# One profile at a time: a request while another runs gets 429.
curl -s -o /dev/null "$url?seconds=2" &
first=$!
sleep 1
busy=$(curl -s -o /dev/null -w '%{http_code}' "$url?seconds=1")
wait "$first"
long=$(curl -s -w ' %{http_code}' "$url?seconds=4000")

PPROF_TMPDIR=$work HOME=$work "$pprof" -top "$url?seconds=3&hz=999" > "$work/top.txt" 2>&1 ||
  { echo "FAIL: pprof could not fetch the profile"; cat "$work/top.txt"; exit 1; }

fail=0
[ "$busy" = 429 ] || { echo "FAIL: a second request got $busy, not 429"; fail=1; }
[ "$long" = "seconds must be at most 3600
 400" ] || { echo "FAIL: seconds=4000 got '$long'"; fail=1; }
# "  555.56ms 62.50% 62.50%   555.56ms 62.50%  work_six()"
for pair in "work_six() 60" "work_three() 30" "work_one() 10"; do
  name=${pair% *}
  want=${pair##* }
  got=$(awk -v n="$name" '$6 == n { sub("%", "", $2); print $2 }' "$work/top.txt")
  if [ -z "$got" ] || awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d > 4 || d < -4) }'; then
    echo "FAIL: $name has ${got:-no} flat% (want $want +- 4)"
    fail=1
  fi
done
if [ $fail -ne 0 ]; then
  cat "$work/top.txt"
  exit 1
fi
echo "ok: pprof -top over HTTP shows 6:3:1; busy -> 429; seconds=4000 -> 400"
