#!/usr/bin/env bash
# strobe agent's profiles carry the roles programs give their threads
# (strobe_thread_role, libstrobe) while the agent runs, not only at its end:
# span_service's four workers (roles "worker 0".."worker 3") run while
# `strobe agent -a --http --push` samples the whole system; the profile
# Google's pprof fetches from /debug/pprof/profile?pid=... and a pushed
# profile both label the workers' samples role=worker N (pprof -tags).
# Usage: agent_roles_check.sh BUILD_DIR
set -euo pipefail
. "$(dirname "$0")/agent_check_lib.sh"

build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
service=
agent=
receiver=
cleanup() {
  [ -n "$service" ] && kill "$service" 2>/dev/null || true
  [ -n "$agent" ] && kill "$agent" 2>/dev/null || true
  [ -n "$receiver" ] && kill "$receiver" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
command -v python3 >/dev/null || { echo "FAIL: python3 is missing (scripts/deps.sh test installs it)"; exit 1; }

pprof=$("$here/../tools/build_pprof.sh" "$build")


mkdir "$work/pushed"
python3 "$here/push_receiver.py" "$work/pushed" &
receiver=$!
wait_for 10 test -s "$work/pushed/port" || { echo "FAIL: the receiver did not start"; exit 1; }

: > "$work/err"  # read below before the agent's shell may have opened it
"$build/strobe" agent --http 127.0.0.1:0 -a -F 999 --push "http://127.0.0.1:$(cat "$work/pushed/port")" \
  --app roles --interval 2s 2> "$work/err" &
agent=$!
port=$(agent_port "$work/err")
# Started after the agent: its channel is found while the agent runs.
# 2,000 requests of 10 ms of CPU on 4 workers: ~10 s on 2 cores.
"$build/tests/fixtures/fixture_span_service" --usual-us 10000 > /dev/null &
service=$!
sleep 2  # the workers have set their roles; the agent has seen the process

fail=0
want="worker 0,worker 1,worker 2,worker 3"
roles_of() {
  # "   role: Total 1.2s" then "         301ms (25.0%): worker 0" lines.
  HOME=$work "$pprof" -tags "$1" 2> /dev/null |
    awk '/^ *[a-z_]+: Total/ { in_role = ($1 == "role:"); next }
         in_role && NF > 0 { sub(/^[^:]*: /, ""); print }' | sort -u | paste -sd, -
}
curl -s -o "$work/window.pb.gz" "http://127.0.0.1:$port/debug/pprof/profile?seconds=2&pid=$service" ||
  { echo "FAIL: no profile served"; fail=1; }
got=$(roles_of "$work/window.pb.gz")
[ "$got" = "$want" ] || { echo "FAIL: the served profile's roles are '$got', not '$want'"; fail=1; }

# A push made after the roles were set: the last one so far.
wait_for 10 test -s "$work/pushed/2.body" || { echo "FAIL: fewer than 3 pushes"; fail=1; }
last=$(ls "$work/pushed" | grep '\.body$' | sort -n | tail -1)
got=$(roles_of "$work/pushed/$last")
[ "$got" = "$want" ] || { echo "FAIL: push $last's roles are '$got', not '$want'"; fail=1; }

kill -INT "$agent"
status=0
wait "$agent" || status=$?
agent=
[ "$status" = 0 ] || { echo "FAIL: the agent exited $status after SIGINT"; fail=1; }
if [ $fail -ne 0 ]; then
  cat "$work/err"
  exit 1
fi
echo "ok: served and pushed profiles label the workers' samples $want"
