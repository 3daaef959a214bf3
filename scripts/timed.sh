#!/usr/bin/env bash
# timed.sh PHASE CMD [ARGS]: runs CMD, then prints how long PHASE took, in
# wall time and in the CPU time of CMD and everything it waited for (`make
# test` prints one line per phase); exits with CMD's status.
phase=$1
shift
start=$(date +%s)
status=0
"$@" || status=$?
# `times`' second line: the children's user and system time (NmN.NNNs);
# run in this shell (a pipe would run it in a subshell, with no children).
out=$(mktemp)
times > "$out"
cpu=$(sed -n 2p "$out" | awk '{
  split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$out"

echo "strobe: phase $phase took $(($(date +%s) - start)) s, $cpu CPU-s (exit $status)"
exit $status
