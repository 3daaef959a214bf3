#!/usr/bin/env bash
# timed.sh PHASE CMD [ARGS]: runs CMD, then prints how long PHASE took, in
# wall time and in the CPU time of CMD and everything it waited for (`make
# test` prints one line per phase), and the time the hypervisor took from
# the machine's CPUs meanwhile (steal, from /proc/stat: a VM whose host is
# busy runs everything slower, and the tests that compare sampled time with
# a thread's own clock see it); exits with CMD's status.
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
# The machine's stolen time so far, in clock ticks ("cpu" line, 8th value).
steal_ticks() { awk '$1 == "cpu" { print $9 + 0; exit }' /proc/stat 2> /dev/null || echo 0; }
children_cpu
cpu_before=$cpu_now
steal_before=$(steal_ticks)
start=$(date +%s)
status=0
"$@" || status=$?
children_cpu
cpu=$((cpu_now - cpu_before))
rm -f "$out"
stolen=$(( ($(steal_ticks) - steal_before) / $(getconf CLK_TCK) ))
echo "strobe: phase $phase took $(($(date +%s) - start)) s, $cpu CPU-s, $stolen s stolen (exit $status)"
exit $status
