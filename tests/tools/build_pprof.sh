#!/usr/bin/env bash
# Builds Google's pprof from Debian's packaged sources (golang-go,
# golang-github-google-pprof-dev; GOPATH mode, no network) into
# BUILD_DIR/tools/pprof once, and prints its path. The consumer tests that
# run pprof share it; a lock keeps two of them from building it at once.
# Usage: build_pprof.sh BUILD_DIR
set -euo pipefail

tools=$1/tools
pprof=$tools/pprof
mkdir -p "$tools"
exec 9>"$tools/pprof.lock"
flock 9
if [ ! -x "$pprof" ]; then
  src=/usr/share/gocode/src/github.com/google/pprof
  if ! command -v go >/dev/null || [ ! -d "$src" ]; then
    echo "FAIL: Go or pprof's sources are missing" >&2
    echo "  hint: scripts/deps.sh test installs golang-go and golang-github-google-pprof-dev" >&2
    exit 1
  fi
  echo "building pprof from $src" >&2
  GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOPROXY=off \
    GOCACHE="$tools/gocache" go build -o "$pprof.tmp" github.com/google/pprof
  mv "$pprof.tmp" "$pprof"
fi
echo "$pprof"
