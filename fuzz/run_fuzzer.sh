#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEEDS WORK: runs one libFuzzer target for
# $FUZZ_SECONDS seconds (default 300), starting from the checked-in seeds
# (and regression inputs) in SEEDS plus what earlier runs found in
# WORK/corpus, where new inputs go (SEEDS is never written). A crash, a
# leak, an input slower than 25 s or above 2 GB of memory fails the run;
# libFuzzer saves the input in WORK/artifacts and the log says which.
# Prints, and writes to WORK/stats.txt, the executions per second.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3
seconds=${FUZZ_SECONDS:-300}
name=$(basename "$fuzzer")
mkdir -p "$work/corpus" "$work/artifacts"
rm -rf "$work/tmp" && mkdir -p "$work/tmp"
export TMPDIR=$work/tmp  # files the targets write for their parsers
# Reports name functions and lines when a symbolizer is installed.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-16 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-16)
fi
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1 || status=$?
# A fuzzer that died before its first report leaves these empty ("?").
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 | cut -d' ' -f2 || true)
inputs=$(find "$work/corpus" -type f | wc -l)
summary="$name: ${rate:-?} exec/s, ${runs:-?} runs in ${seconds} s, coverage ${cov:-?} edges, $inputs corpus inputs, exit $status"
echo "$summary" | tee "$work/stats.txt"
if [ "$status" -ne 0 ]; then
  # The report: what failed and on which input.
  grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse|INITED|RELOAD)' "$work/log" | tail -80
  echo "the input that failed is in $work/artifacts/; once fixed, keep it in $seeds/ as a regression input"
fi
exit "$status"
