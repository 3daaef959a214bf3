#!/usr/bin/env bash
# What docs/INSTALL.md says of a strobe built with
# -DSTROBE_STATIC_SYSTEM_LIBS=ON: the executable needs only libc and libm
# (its DT_NEEDED entries, exactly), it runs, and `strobe agent` finds its
# HTTP module next to it. Configured and built here, in BUILD_DIR/static,
# at -O0 and without the tests: only what is linked is checked, and this
# costs the suite as little as it can.
# Usage: static_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail

src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)/static
fail() { echo "FAIL: $*"; exit 1; }

cmake -S "$src" -B "$build" -G Ninja -DSTROBE_STATIC_SYSTEM_LIBS=ON -DSTROBE_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O0 -DCMAKE_C_FLAGS=-O0 > "$build.log" 2>&1 ||
  { cat "$build.log"; fail "cmake could not configure the static build"; }
cmake --build "$build" --target strobe >> "$build.log" 2>&1 ||
  { tail -50 "$build.log"; fail "the static build failed"; }

exe=$build/strobe
# glibc's libc and libm, and its dynamic loader (libstdc++ and libgcc,
# linked in, call into it: _dl_find_object, __tls_get_addr).
needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
[[ $needed =~ ^(ld-linux[-a-z0-9_.]*\.so\.[0-9]+\ )?libc\.so\.6\ libm\.so\.6\ $ ]] ||
  fail "the static strobe needs '$needed', docs/INSTALL.md says glibc's libc, libm and loader only"
version=$("$exe" --version) || fail "the static strobe did not run"
[[ $version == strobe\ * ]] || fail "strobe --version printed '$version'"

# The agent's HTTP module, built with strobe, is found next to it: the
# agent serves (and stops at SIGTERM with its summary).
[ -f "$build/strobe-agent-http.so" ] || fail "no strobe-agent-http.so beside the static strobe"
status=0
err=$(timeout 2 "$exe" agent --http 127.0.0.1:0 -p $$ 2>&1) || status=$?
[ "$status" -eq 124 ] || fail "strobe agent ended with status $status: $err"
[[ $err == "strobe: serving pprof profiles on http://127.0.0.1:"* ]] ||
  fail "the static strobe's agent did not serve: $err"
echo "static strobe: DT_NEEDED $needed; $version"
