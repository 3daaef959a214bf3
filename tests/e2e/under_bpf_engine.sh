#!/usr/bin/env bash
# Runs an end-to-end test binary with the BPF engine as strobe's default
# engine (STROBE_CAPTURE_ENGINE=bpf), so that the suites written for
# `strobe record` and `top` (spans, JIT files, kept files, the live view)
# check the BPF engine as well. Skipped (status 77, with strobe's reason)
# where the kernel refuses BPF.
# Usage: under_bpf_engine.sh STROBE TEST_BINARY [GTEST ARGS...]
set -euo pipefail
strobe=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! err=$("$strobe" record --engine bpf -o "$dir/probe.db" -- /bin/true 2>&1 >/dev/null); then
  echo "skipped: the kernel refuses BPF here: $(head -1 <<<"$err")"
  exit 77
fi
STROBE_CAPTURE_ENGINE=bpf "$@"
