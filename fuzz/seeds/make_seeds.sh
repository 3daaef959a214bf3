#!/usr/bin/env bash
# Makes the seed corpora of fuzz/corpus/ (checked in; run again only to
# renew them): small ELF files from tiny.cpp built by GCC and Clang in
# several forms, their DWARF and CFI sections cut out for the section
# targets, perf records and texts written by make_seeds.py, and a small
# recording of a fixture (from a build of strobe: BUILD, default build/),
# and small perf.data files (perf record).
# Needs gcc, clang, objcopy, python3 (and perf for the perf.data seeds).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
corpus=$root/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(-ffreestanding -nostdlib -static -fno-exceptions -fno-rtti -Wl,--build-id
  -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,--no-dynamic-linker)
build_one() {  # NAME COMPILER FLAGS...
  local name=$1 cc=$2
  shift 2
  "$cc" "${common[@]}" "$@" -o "$tmp/$name" "$here/tiny.cpp"
}
build_one gcc_O2_dwarf5 g++ -O2 -g
build_one gcc_O2_dwarf4 g++ -O2 -gdwarf-4
build_one gcc_O0_dwarf5 g++ -O0 -g -fno-omit-frame-pointer
build_one clang_O2_dwarf5 clang++ -O2 -g
build_one clang_O1_dwarf4 clang++ -O1 -gdwarf-4
build_one gcc_debug_frame g++ -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables
objcopy --compress-debug-sections=zlib "$tmp/gcc_O2_dwarf5" "$tmp/gcc_O2_zlib"
objcopy --strip-all "$tmp/gcc_O2_dwarf5" "$tmp/gcc_O2_stripped"
objcopy --only-keep-debug "$tmp/clang_O2_dwarf5" "$tmp/clang_O2_debug"

rm -rf "${corpus:?}"/{elf,die,line_program,range_list,cfi}/seed-*
mkdir -p "$corpus"/{elf,die,line_program,range_list,cfi}
for f in gcc_O2_dwarf5 gcc_O2_dwarf4 gcc_O0_dwarf5 clang_O2_dwarf5 clang_O1_dwarf4 gcc_O2_zlib \
  gcc_O2_stripped clang_O2_debug; do
  cp "$tmp/$f" "$corpus/elf/seed-$f"
done

section() {  # FILE SECTION -> its bytes on stdout (nothing when absent)
  objcopy --dump-section "$2=$tmp/section" "$1" "$tmp/scratch" 2>/dev/null || true
  cat "$tmp/section" 2>/dev/null || true
  rm -f "$tmp/section"
}
sep() { printf '\xf0\x5e\xc7\x10'; }  # fuzz_input.hpp's kSeparator
for f in gcc_O2_dwarf5 gcc_O2_dwarf4 gcc_O0_dwarf5 clang_O2_dwarf5 clang_O1_dwarf4; do
  bin=$tmp/$f
  {
    first=1
    for s in .debug_info .debug_abbrev .debug_str .debug_line .debug_line_str .debug_str_offsets \
      .debug_addr .debug_rnglists .debug_ranges .debug_aranges; do
      [ $first -eq 1 ] || sep
      first=0
      section "$bin" $s
    done
  } >"$corpus/die/seed-$f"
  { section "$bin" .debug_line; sep; section "$bin" .debug_line_str; sep; section "$bin" .debug_str
    sep; printf '/src/tiny'; } >"$corpus/line_program/seed-$f"
done
for f in gcc_O2_dwarf5 clang_O2_dwarf5 gcc_O0_dwarf5 gcc_debug_frame; do
  bin=$tmp/$f
  { section "$bin" .eh_frame; sep; section "$bin" .debug_frame; sep
    python3 "$here/make_seeds.py" walk; } >"$corpus/cfi/seed-$f"
done
# Range lists: the seeds' own sections under range_list's fixed unit.
python3 "$here/make_seeds.py" range_list "$corpus/range_list" \
  "$(section "$tmp/gcc_O2_dwarf5" .debug_rnglists | base64 -w0)" \
  "$(section "$tmp/clang_O2_dwarf5" .debug_rnglists | base64 -w0)" \
  "$(section "$tmp/gcc_O2_dwarf4" .debug_ranges | base64 -w0)"
python3 "$here/make_seeds.py" texts "$corpus"

# CPython's line tables and _Py_DebugOffsets, from each installed 3.11+.
mkdir -p "$corpus/cpython"
for py in /usr/bin/python3.1[1-9] "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[1-9].*/bin/python3; do
  [ -x "$py" ] && "$py" "$here/make_cpython_seeds.py" "$corpus/cpython"
done

# A recording: 0.3 s of a fixture, repacked in 512-byte pages to stay small.
if [ -x "$build/strobe" ] && [ -x "$build/tests/fixtures/fixture_shares" ]; then
  "$build/strobe" record -F 999 -o "$tmp/rec.db" -- "$build/tests/fixtures/fixture_shares" 20000 40 \
    >/dev/null 2>&1
  mkdir -p "$corpus/recording"
  python3 "$here/make_seeds.py" recording "$tmp/rec.db" "$corpus/recording/seed-shares"
else
  echo "no $build/strobe: the recording seed is left as it is" >&2
fi
# perf.data files: ~30 ms of a loop under perf record in each form strobe
# reads (-g, --call-graph dwarf with a small stack copy, -z, a pipe, two
# events), with perf's build-id cache kept out of ~/.debug. The build-ids come
# with the MMAP2 records (--buildid-mmap): perf 6.1 on kernel 6.18 often
# aborts when it collects them at the end of a run.
if command -v perf >/dev/null && perf record -q -B -o "$tmp/probe.data" -- true 2>/dev/null; then
  cat >"$tmp/spin.c" <<'SPIN'
int main(void) {
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 30000000UL; ++i) x += i;
  return (int)(x & 1);
}
SPIN
  gcc -O1 -o "$tmp/spin" "$tmp/spin.c"
  rm -rf "${corpus:?}"/perfdata/seed-*
  mkdir -p "$corpus/perfdata"
  rec() {  # NAME PERF-RECORD-OPTIONS...
    local name=$1
    shift
    HOME=$tmp perf record -q --buildid-mmap -F 999 "$@" -o "$corpus/perfdata/seed-$name" -- \
      "$tmp/spin" 2>/dev/null
  }
  rec fp -g
  rec dwarf --call-graph dwarf,256
  rec zstd -g -z
  rec two_events -e cpu-clock,task-clock
  HOME=$tmp perf record -q -B -F 999 -g -o - -- "$tmp/spin" >"$corpus/perfdata/seed-pipe" \
    2>/dev/null
else
  echo "perf record does not run here: the perf.data seeds are left as they are" >&2
fi
du -sh "$corpus"/*
