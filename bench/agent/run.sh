#!/usr/bin/env bash
# strobe agent's own cost over a long run: `strobe agent -a -F 99` serving
# --http (scraped every 15 s for the last 14 s, as Grafana Alloy does) and
# pushing every 15 s to a local sink, next to a steady load on every CPU
# (bench_overhead_workload). Every 10 s the agent's CPU time (utime+stime
# of /proc/PID/stat) and memory (VmRSS, RssAnon, RssFile of
# /proc/PID/status) are read;
# printed: its CPU as a share of one core over the run, its RSS at the
# first minute and at the end, and its peak (VmHWM). Then, as a reference,
# `perf record -a -F 99 -g` writing to a pipe (to /dev/null) over the same
# load for PEER_SECONDS: the kernel-side sampling both pay, and perf's own
# CPU without symbolizing or serving anything.
# With CHURN_DIR, the executables under it (e.g. build-asan/tests/unit:
# programs with large debug information) also run one after another, each
# for at most 8 s, for the whole run: new modules for the agent to name,
# as on a host where programs come and go.
# Usage: bench/agent/run.sh [BUILD_DIR] [SECONDS (600)] [PEER_SECONDS (120)] [CHURN_DIR]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
seconds=${2:-600}
peer_seconds=${3:-120}
churn_dir=${4:-}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
tck=$(getconf CLK_TCK)
cpus=$(nproc)

# A steady load: the overhead workload's two threads, one copy per 2 CPUs.
for ((i = 0; i < (cpus + 1) / 2; i++)); do
  "$build/bench/bench_overhead_workload" 100000000000 2>/dev/null &
  pids+=($!)
done

# A push sink that answers 200 and forgets.
cat > "$work/sink.py" <<'PY'
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$work/sink.py" "$work/sink.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/sink.port" ] && break; sleep 0.1; done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

: > "$work/agent.err"  # read below before the agent's shell may have opened it
"$build/strobe" agent -a -F 99 --http 127.0.0.1:0 \
  --push "http://127.0.0.1:$(cat "$work/sink.port")" --app bench 2> "$work/agent.err" &
agent=$!
pids+=($agent)
port=
for _ in $(seq 100); do
  port=$(sed -n 's|^strobe: serving pprof profiles on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/agent.err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/agent.err"; exit 1; }
if [ -n "$churn_dir" ]; then
  # One shell runs them, so that stopping it stops the program it runs.
  (trap 'kill "$child" 2> /dev/null; exit 0' TERM
  child=
  while true; do
    for exe in $(find "$churn_dir" -type f -executable | sort); do
      timeout 8 "$exe" > /dev/null 2>&1 &
      child=$!
      wait "$child" 2> /dev/null || true  # some crash without their setup
    done
  done) 2> /dev/null &
  pids+=($!)
fi
# The scraper: a 14 s profile every 15 s.
(while true; do
  curl -s -o /dev/null "http://127.0.0.1:$port/debug/pprof/profile?seconds=14" || true
  sleep 1
done) &
pids+=($!)

start_ticks=$(cpu_ticks "$agent")
start=$(date +%s.%N)
rss_1min=
echo "time_s cpu_s rss_kb anon_kb file_kb" > "$work/samples"
for ((t = 10; t <= seconds; t += 10)); do
  sleep 10
  c=$(cpu_ticks "$agent")
  r=$(status_kb "$agent" VmRSS)
  cpu=$(awk -v c="$c" -v s="$start_ticks" -v k="$tck" 'BEGIN { printf "%.2f", (c - s) / k }')
  echo "$t $cpu $r $(status_kb "$agent" RssAnon) $(status_kb "$agent" RssFile)" >> "$work/samples"
  [ "$t" = 60 ] && rss_1min=$r
done
end=$(date +%s.%N)
end_ticks=$(cpu_ticks "$agent")
hwm=$(status_kb "$agent" VmHWM)
rss_end=$(status_kb "$agent" VmRSS)
kill -INT "$agent"
wait "$agent" || true
cat "$work/samples"
grep -E "agent stopped|warning" "$work/agent.err" | tail -5
agent_pct=$(awk -v a="$start_ticks" -v b="$end_ticks" -v k="$tck" -v s="$start" -v e="$end" \
  'BEGIN { printf "%.2f", 100 * (b - a) / k / (e - s) }')
echo "agent: ${agent_pct}% of one core over $seconds s; RSS ${rss_1min:-?} KiB at 1 min, $rss_end KiB at the end, peak $hwm KiB"

# The reference: perf record -a -F 99 -g into a pipe, same load.
if command -v perf > /dev/null && [ "$peer_seconds" -gt 0 ]; then
  perf record -a -F 99 -g -o - -- sleep "$peer_seconds" 2>/dev/null > /dev/null &
  perf_pid=$!
  pids+=($perf_pid)
  sleep 1
  p0=$(cpu_ticks "$perf_pid")
  ps0=$(date +%s.%N)
  sleep $((peer_seconds - 2))
  p1=$(cpu_ticks "$perf_pid")
  ps1=$(date +%s.%N)
  prss=$(status_kb "$perf_pid" VmHWM)
  wait "$perf_pid" || true
  perf_pct=$(awk -v a="$p0" -v b="$p1" -v k="$tck" -v s="$ps0" -v e="$ps1" \
    'BEGIN { printf "%.2f", 100 * (b - a) / k / (e - s) }')
  echo "perf record -a -F 99 -g (to a pipe): ${perf_pct}% of one core over $peer_seconds s; peak RSS $prss KiB"
  awk -v a="$agent_pct" -v p="$perf_pct" 'BEGIN { if (p > 0) printf "ratio agent/perf CPU: %.2f\n", a / p }'
fi
