#!/usr/bin/env bash
# `cmake --install` of libstrobe into a scratch prefix, then the examples
# built against it as a user would: the C one with pkg-config, the C++ one
# with find_package(strobe); both must run and print a report.
# Usage: inproc_install_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail

src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
libdir=$(dirname "$(find "$prefix" -name 'libstrobe.so' | head -1)")
for f in "$prefix/include/strobe/strobe.h" "$prefix/include/strobe/strobe.hpp" \
         "$libdir/pkgconfig/strobe.pc" "$libdir/cmake/strobe/strobeConfig.cmake"; do
  [ -e "$f" ] || { echo "FAIL: $f was not installed"; cat "$work/install.log"; exit 1; }
done

export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -O2 -fno-omit-frame-pointer "$src/examples/libstrobe/c_example.c" \
  $(pkg-config --cflags --libs strobe) -o "$work/c_example"

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
cmake -S "$work/app" -B "$work/app/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$work/app/build" > /dev/null

export LD_LIBRARY_PATH=$libdir
"$work/c_example" "$work/c.pb.gz" > "$work/c.txt"
grep -q "hot" "$work/c.txt" || { echo "FAIL: the C example's report lacks hot()"; cat "$work/c.txt"; exit 1; }
[ -s "$work/c.pb.gz" ] || { echo "FAIL: the C example wrote no pprof file"; exit 1; }
"$work/app/build/cpp_example" > "$work/cpp.txt"
grep -q "parse" "$work/cpp.txt" || { echo "FAIL: the C++ example's report lacks parse()"; cat "$work/cpp.txt"; exit 1; }
"$work/app/build/spans_example" "$work/app.db" > "$work/spans.txt"
"$build/strobe" report "$work/app.db" --spans -f csv > "$work/spans.csv"
grep -q "^request,800," "$work/spans.csv" || { echo "FAIL: the spans example's recording lacks its 800 requests"; cat "$work/spans.txt" "$work/spans.csv"; exit 1; }
echo "ok: installed libstrobe builds and runs the examples"
