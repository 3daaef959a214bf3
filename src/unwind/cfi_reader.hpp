// Reading call frame information's bytes: a bounds-checked reader and the
// sizes of DW_EH_PE_* pointer encodings, shared by cfi_registers.cpp and
// cfa_register.cpp. Little-endian (x86-64, aarch64).
// Thread safety: values only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace strobe::unwind {

// A bounds-checked reader; a failed read makes ok() false.
struct CfiReader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  uint64_t fixed(size_t n) {
    if (static_cast<size_t>(end - p) < n) return fail();
    uint64_t v = 0;
    std::memcpy(&v, p, n);  // little-endian (x86-64, aarch64)
    p += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
      const uint8_t b = *p++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return fail();
  }
  void skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end - p)) {
      fail();
      return;
    }
    p += n;
  }
  uint64_t fail() {
    ok = false;
    p = end;
    return 0;
  }
};

// The byte size of a value in pointer encoding `enc` (DW_EH_PE_*): 0 for
// (s|u)leb128, -1 for an encoding it does not know.
inline int encodedSize(uint8_t enc) {
  if (enc == 0xff) return -1;  // DW_EH_PE_omit
  switch (enc & 0x0f) {
    case 0x00:  // absptr
      return 8;
    case 0x02:  // udata2
    case 0x0a:  // sdata2
      return 2;
    case 0x03:  // udata4
    case 0x0b:  // sdata4
      return 4;
    case 0x04:  // udata8
    case 0x0c:  // sdata8
      return 8;
    case 0x01:  // uleb128
    case 0x09:  // sleb128
      return 0;
    default:
      return -1;
  }
}

}  // namespace strobe::unwind
