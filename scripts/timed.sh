#!/usr/bin/env bash
# timed.sh PHASE CMD [ARGS]: runs CMD, then prints how long PHASE took, in
# wall time and in the CPU time of CMD and everything it waited for (`make
# test` prints one line per phase); exits with CMD's status.
phase=$1
shift
# The CPU time (user + system) of this shell's waited-for children so far:
# `times`' second line (NmN.NNNs NmN.NNNs). Counted from before CMD, since a
# shell that exec'ed this script brings its own children's time along. Run
# in this shell (in a pipe or $(...), `times` would speak for a subshell).
out=$(mktemp)
children_cpu() {  # sets $cpu_now
  times > "$out"
  cpu_now=$(sed -n 2p "$out" | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
}
children_cpu
cpu_before=$cpu_now
start=$(date +%s)
status=0
"$@" || status=$?
children_cpu
cpu=$((cpu_now - cpu_before))
rm -f "$out"
echo "strobe: phase $phase took $(($(date +%s) - start)) s, $cpu CPU-s (exit $status)"
exit $status
