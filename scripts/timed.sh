#!/usr/bin/env bash
# timed.sh PHASE CMD [ARGS]: runs CMD, then prints how long PHASE took
# (`make test` prints one line per phase); exits with CMD's status.
phase=$1
shift
start=$(date +%s)
status=0
"$@" || status=$?
echo "strobe: phase $phase took $(($(date +%s) - start)) s (exit $status)"
exit $status
