#!/usr/bin/env bash
# The Debian package as a user gets it: built with CPack (what `make
# package` runs), checked by lintian (no errors), extracted with dpkg -x
# into a scratch root, and used from there: strobe record and report, the
# man pages rendered by man -l, the bash completion loaded, and the
# libstrobe examples built against the extracted headers and library with
# pkg-config, with find_package(strobe), and statically with libstrobe.a.
# Usage: package_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail

src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# CPack into a folder of the test's own, so that a package in the build
# folder (make package) is left alone.
(cd "$build" && cpack -G DEB -B "$work/out" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack could not build the package"; }
deb=$(ls "$work"/out/strobe_*_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$work/cpack.log"; fail "no strobe_VERSION_ARCH.deb was written"; }
arch=$(dpkg --print-architecture)
[[ $(basename "$deb") =~ ^strobe_[0-9][0-9A-Za-z.+~]*_${arch}\.deb$ ]] ||
  fail "package file name $(basename "$deb") is not strobe_VERSION_${arch}.deb"

# What the package holds.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$work/contents"
for f in /usr/bin/strobe /usr/lib/libstrobe.a /usr/include/strobe/strobe.h \
         /usr/include/strobe/strobe.hpp /usr/lib/pkgconfig/strobe.pc \
         /usr/lib/cmake/strobe/strobeConfig.cmake /usr/share/man/man1/strobe.1.gz \
         /usr/share/man/man1/strobe-record.1.gz /usr/share/man/man1/strobe-report.1.gz \
         /usr/share/man/man1/strobe-top.1.gz /usr/share/man/man1/strobe-agent.1.gz \
         /usr/share/man/man1/strobe-diff.1.gz /usr/share/man/man1/strobe-import.1.gz \
         /usr/share/man/man3/libstrobe.3.gz /usr/lib/systemd/system/strobe-agent.service \
         /usr/share/bash-completion/completions/strobe /usr/share/doc/strobe/copyright \
         /usr/share/doc/strobe/changelog.gz; do
  grep -qx "$f" "$work/contents" || { cat "$work/contents"; fail "the package lacks $f"; }
done
soname=$(grep -E '^/usr/lib/libstrobe\.so\.[0-9]+$' "$work/contents" || true)
[ -n "$soname" ] || fail "the package lacks libstrobe.so.N (the soname link)"

# `cmake --install` installs the same files as the package (stripping and
# compression aside).
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
(cd "$work/prefix" && find . ! -type d | sed 's|^\.|/usr|' | sort) > "$work/installed"
grep -v '/$' "$work/contents" | grep -v '^/usr/share/doc/strobe/changelog' | sort > "$work/packaged"
grep -v '^/usr/share/doc/strobe/changelog' "$work/installed" > "$work/installed.cmp"
diff "$work/packaged" "$work/installed.cmp" ||
  fail "cmake --install and the package install different files (< package, > cmake --install)"

# Depends: only Debian runtime packages, and libc among them.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
[[ $depends == *libc6* ]] || fail "Depends does not name libc6: $depends"
[[ $depends == *libcapstone* ]] || fail "Depends does not name capstone (strobe annotate loads it): $depends"
[[ $depends != *-dev* ]] || fail "Depends names a -dev package: $depends"

# lintian: no errors (its warnings are printed for the record).
lintian --no-tag-display-limit "$deb" > "$work/lintian.txt" 2>&1 || true
cat "$work/lintian.txt"
if grep -q '^E: ' "$work/lintian.txt"; then fail "lintian reports errors"; fi

root=$work/root
dpkg -x "$deb" "$root"

# strobe from the package records and reports.
cat > "$work/spin.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void spin_here(void) {
  for (unsigned long i = 0; i < 300000000UL; ++i) sink += i;
}
int main(void) { spin_here(); return 0; }
C
cc -O1 -g -fno-omit-frame-pointer "$work/spin.c" -o "$work/spin"
"$root/usr/bin/strobe" --version | grep -q . || fail "strobe --version printed nothing"
"$root/usr/bin/strobe" record -o "$work/spin.db" -- "$work/spin" 2> "$work/record.txt" ||
  { cat "$work/record.txt"; fail "strobe record from the package failed"; }
"$root/usr/bin/strobe" report "$work/spin.db" > "$work/report.txt"
grep -q spin_here "$work/report.txt" || { cat "$work/report.txt"; fail "the report lacks spin_here"; }

# The man pages render, each with its NAME and, for the commands, the
# options --help lists.
for page in man1/strobe.1 man1/strobe-record.1 man1/strobe-report.1 man1/strobe-top.1 \
  man1/strobe-agent.1 man1/strobe-diff.1 man1/strobe-import.1 man3/libstrobe.3; do
  MANWIDTH=80 man -l "$root/usr/share/man/$page.gz" > "$work/page.txt" 2> "$work/man.err" ||
    { cat "$work/man.err"; fail "man -l could not render $page"; }
  grep -q '^NAME' "$work/page.txt" || fail "$page has no NAME section"
done
MANWIDTH=80 man -l "$root/usr/share/man/man1/strobe-record.1.gz" > "$work/page.txt" 2> /dev/null
for opt in --freq --call-graph --duration --output; do
  grep -q -- "$opt" "$work/page.txt" || fail "strobe-record(1) does not list $opt"
done

MANWIDTH=80 man -l "$root/usr/share/man/man1/strobe-import.1.gz" > "$work/page.txt" 2> /dev/null
for opt in --output --event build-id perf.data; do
  grep -q -- "$opt" "$work/page.txt" || fail "strobe-import(1) does not mention $opt"
done

MANWIDTH=80 man -l "$root/usr/share/man/man1/strobe-agent.1.gz" > "$work/page.txt" 2> /dev/null
for opt in --http --push --app --label --interval --push-queue Pyroscope; do
  grep -q -- "$opt" "$work/page.txt" || fail "strobe-agent(1) does not mention $opt"
done
# The agent's unit starts the packaged strobe with the options of
# /etc/default/strobe-agent, and is enabled into multi-user.target.
unit=$root/usr/lib/systemd/system/strobe-agent.service
grep -qx 'ExecStart=/usr/bin/strobe agent $STROBE_AGENT_OPTS' "$unit" ||
  fail "the unit does not run /usr/bin/strobe agent"
grep -qx 'EnvironmentFile=-/etc/default/strobe-agent' "$unit" || fail "the unit reads no options file"
grep -qx 'WantedBy=multi-user.target' "$unit" || fail "the unit cannot be enabled"

# The bash completion completes subcommands, the report formats and the
# agent's options.
got=$(bash -c 'source "$1"; COMP_WORDS=("$2" re); COMP_CWORD=1; _strobe; echo "${COMPREPLY[*]}"' _ \
  "$root/usr/share/bash-completion/completions/strobe" "$root/usr/bin/strobe")
[[ $got == *record* && $got == *report* ]] || fail "completion of 're' gave '$got'"
got=$(bash -c 'source "$1"; COMP_WORDS=("$2" report --format fl); COMP_CWORD=3; _strobe; echo "${COMPREPLY[*]}"' _ \
  "$root/usr/share/bash-completion/completions/strobe" "$root/usr/bin/strobe")
[ "$got" = flamegraph ] || fail "completion of 'report --format fl' gave '$got'"
got=$(bash -c 'source "$1"; COMP_WORDS=("$2" agent --pu); COMP_CWORD=2; _strobe; echo "${COMPREPLY[*]}"' _ \
  "$root/usr/share/bash-completion/completions/strobe" "$root/usr/bin/strobe")
[ "$got" = "--push --push-queue" ] || fail "completion of 'agent --pu' gave '$got'"

# libstrobe from the package: the C example with pkg-config (shared, then
# static), the C++ one with find_package.
libdir=$root/usr/lib
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -O2 -fno-omit-frame-pointer "$src/examples/libstrobe/c_example.c" \
  $(pkg-config --cflags --libs strobe) -o "$work/c_example"
LD_LIBRARY_PATH=$libdir "$work/c_example" > "$work/c.txt"
grep -q hot "$work/c.txt" || { cat "$work/c.txt"; fail "the C example (shared) lacks hot()"; }
c++ -O2 -fno-omit-frame-pointer -x c "$src/examples/libstrobe/c_example.c" -x none \
  $(pkg-config --cflags strobe) "$libdir/libstrobe.a" $(pkg-config --libs-only-l --static strobe | sed 's/-lstrobe//') \
  -o "$work/c_static"
if ldd "$work/c_static" | grep -q libstrobe; then fail "the static build still loads libstrobe.so"; fi
"$work/c_static" > "$work/cs.txt"
grep -q hot "$work/cs.txt" || { cat "$work/cs.txt"; fail "the C example (static) lacks hot()"; }

mkdir -p "$work/app"
cat > "$work/app/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(app CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(strobe REQUIRED)
add_executable(cpp_example $src/examples/libstrobe/cpp_example.cpp)
target_compile_options(cpp_example PRIVATE -O2 -fno-omit-frame-pointer)
target_link_libraries(cpp_example PRIVATE strobe::strobe)
add_executable(spans_example $src/examples/libstrobe/spans_example.cpp)
target_compile_options(spans_example PRIVATE -O2 -fno-omit-frame-pointer)
target_link_libraries(spans_example PRIVATE strobe::strobe)
CMAKE
cmake -S "$work/app" -B "$work/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" > "$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; fail "find_package(strobe) failed against the package"; }
cmake --build "$work/app/build" > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "the C++ example did not build"; }
LD_LIBRARY_PATH=$libdir "$work/app/build/cpp_example" > "$work/cpp.txt"
grep -q parse "$work/cpp.txt" || { cat "$work/cpp.txt"; fail "the C++ example lacks parse()"; }
# The spans example writes a native recording that the package's strobe reads.
LD_LIBRARY_PATH=$libdir "$work/app/build/spans_example" "$work/app.db" > "$work/spans.txt"
"$root/usr/bin/strobe" report "$work/app.db" --spans -f csv > "$work/spans.csv"
grep -q "^request,800," "$work/spans.csv" ||
  { cat "$work/spans.txt" "$work/spans.csv"; fail "the spans example's recording lacks its 800 requests"; }
echo "ok: $(basename "$deb") builds, passes lintian, installs and works from a scratch root"
