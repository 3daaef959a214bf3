// The line table of a CPython 3.11+ code object (co_linetable): a sequence
// of location entries, each covering 1-8 code units (2-byte units of the
// bytecode, inline caches included) with the line they come from (CPython's
// Objects/locations.md). The first byte of an entry has bit 7 set, its code
// in bits 3-6 and its length - 1 in bits 0-2; the bytes after it (bit 7
// clear) hold line deltas and columns: codes 0-9 (short forms: same line),
// 10-12 (one-line forms: line + code - 10, two column bytes), 13 (no
// columns: a signed varint line delta), 14 (long form: signed line delta,
// then end-line delta, column and end column as varints), 15 (no
// location). Varints are 6-bit chunks, least significant first, bit 6 set
// on every chunk but the last; a signed varint keeps the sign in bit 0.
// Lines are deltas from the previous entry's line, starting at
// co_firstlineno.
//
// The table comes from another process's memory: the decoder trusts no
// byte, stops at the first malformed entry and never reads past `size`.
// Thread safety: pure functions. No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strobe::cpython {

// Code units [start, end) come from `line` (-1: the entry has no location).
struct LineRange {
  uint32_t start = 0;
  uint32_t end = 0;
  int32_t line = -1;
};

// Decodes the whole table into `out` (appended). false when an entry is
// malformed or cut short: `out` then holds the ranges before it.
bool decodeLineTable(const uint8_t* table, size_t size, int32_t first_line,
                     std::vector<LineRange>& out);

// The line of code unit `unit`, or -1 when no entry covers it, its entry has
// no location, or the table is malformed before it.
int32_t lineAt(const uint8_t* table, size_t size, int32_t first_line, uint32_t unit);

}  // namespace strobe::cpython
