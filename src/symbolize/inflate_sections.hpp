// inflateDebugSections: an in-memory copy of an ELF64 file whose compressed
// debug sections (SHF_COMPRESSED, zlib or zstd) are stored decompressed, for
// libdw to read as if the file had never been compressed.
//
// Why: libdw's dwarf_begin_elf inflates every debug section it knows, one
// after another with zlib, including ones strobe never reads (location
// lists, macros); for libc's separate debug file that was most of the cost
// of a short `-g dwarf` recording. Here the sections strobe reads are
// decompressed with libdeflate (zlib) or libzstd, on two threads when there
// is enough to do, and the unread ones are hidden (their name is cleared, so
// libdw skips them). zstd also works where libelf is too old to read it.
//
// Layout of the copy: the ELF header, then the data of every section that
// has file bytes (uncompressed ones copied, compressed ones decompressed,
// each aligned as it asks), then a new section header table. Program
// headers are left out (e_phnum = 0): the copy is for reading sections, and
// ElfFile keeps what it read from the segments of the original. The copy
// lives in an anonymous mapping advised to use huge pages, so filling
// tens of MB does not take thousands of page faults.
// Thread safety: the function is reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/mmap.hpp"
#include "base/result.hpp"

namespace strobe::symbolize {

struct InflatedImage {
  Mmap memory;      // owns the bytes
  size_t size = 0;  // of the image, at memory.data()
  [[nodiscard]] uint8_t* bytes() const { return static_cast<uint8_t*>(memory.data()); }
};

// `raw` is the whole file (size bytes). Returns an empty image (size 0) when
// the file is not a native-endian ELF64 or has no compressed debug section
// to inflate; a kCorrupt error when a compressed section does not
// decompress to the size its header states. `path` names the file in errors.
Result<InflatedImage> inflateDebugSections(const uint8_t* raw, size_t size,
                                           const std::string& path);

}  // namespace strobe::symbolize
