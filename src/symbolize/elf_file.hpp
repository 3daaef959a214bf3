// ElfFile: one ELF file opened read-only through libelf (ELF_C_READ_MMAP).
//
// Owns: the file descriptor and the Elf* handle; both are released when the
// ElfFile is destroyed (the Elf* first). elf() hands out a borrowed handle that
// stays valid while this ElfFile lives; other views (DwarfIndex, SymbolTable
// construction) must not outlive it.
// open() validates the header, the program and section header tables and every
// PT_LOAD against the file size, so a truncated or non-ELF file gives a Result
// error (kNotFound / kCorrupt) instead of a crash later.
// Thread safety: none; use one ElfFile from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "base/mmap.hpp"
#include "base/result.hpp"
#include "base/types.hpp"

struct Elf;  // libelf's handle (from <libelf.h>)

namespace strobe::symbolize {

// One PT_LOAD program header.
struct LoadSegment {
  FileOffset offset;       // p_offset
  Svma vaddr;              // p_vaddr
  uint64_t file_size = 0;  // p_filesz
  uint64_t mem_size = 0;   // p_memsz
  uint32_t flags = 0;      // p_flags (PF_R | PF_W | PF_X)
};

class ElfFile {
 public:
  // `name`, when given, is what path() says (and where a .gnu_debuglink is
  // looked for) when `path` is only a way in, such as /proc/self/fd/N.
  static Result<ElfFile> open(const std::string& path, const std::string& name = {});

  ElfFile(ElfFile&&) noexcept;
  ElfFile& operator=(ElfFile&&) noexcept;
  ~ElfFile();

  [[nodiscard]] const std::string& path() const { return path_; }
  // The NT_GNU_BUILD_ID note as lowercase hex, "" when the file has none.
  [[nodiscard]] const std::string& buildId() const { return build_id_; }
  // e_type: ET_EXEC, ET_DYN, ET_REL, ET_CORE.
  [[nodiscard]] uint16_t type() const { return type_; }
  // A position-independent executable: ET_DYN with DF_1_PIE, or (older
  // linkers) with an interpreter and no soname. Shared libraries are not PIE.
  [[nodiscard]] bool isPie() const { return pie_; }
  [[nodiscard]] const std::vector<LoadSegment>& loadSegments() const { return segments_; }
  // The SVMA of a file offset: the PT_LOAD with p_offset <= off <
  // p_offset + p_filesz gives off − p_offset + p_vaddr. nullopt when no
  // segment holds the offset.
  [[nodiscard]] std::optional<Svma> fileOffsetToSvma(FileOffset off) const;
  // The inverse: the file offset of [start, start + size) when one PT_LOAD
  // holds all of it in the file, else nullopt.
  [[nodiscard]] std::optional<FileOffset> svmaToFileOffset(Svma start, uint64_t size) const;
  // e_machine (EM_X86_64, EM_AARCH64, ...).
  [[nodiscard]] uint16_t machine() const { return machine_; }
  // `size` bytes of the file from `offset`, read from the file itself (not
  // the inflated copy); kCorrupt when the file is shorter.
  [[nodiscard]] Result<std::vector<uint8_t>> readBytes(FileOffset offset, uint64_t size) const;
  // Borrowed; valid while this ElfFile lives (and replaced by
  // inflateDebugSections()).
  [[nodiscard]] Elf* elf() const { return elf_.get(); }

  // Reads the file's compressed debug sections into memory, decompressed
  // (see inflate_sections.hpp), and from then on elf() is a handle on that
  // copy. Call it before building views (DwarfIndex, SymbolTable). Nothing
  // happens for a file without compressed debug sections; an error (the
  // handle is unchanged) when one does not decompress.
  Status inflateDebugSections();

  // Lets the pages of the file read so far go from this process's memory
  // (they stay in the page cache and are read in again when next used), so
  // that a file kept open for long does not count in its RSS. Nothing for
  // an inflated copy, which is the process's own memory.
  void releasePages() const;

 private:
  struct ElfCloser {
    void operator()(Elf* e) const;
  };
  ElfFile() = default;
  Status load(uint64_t file_size);

  std::string path_;
  Fd fd_;       // declared before elf_, so it is closed after elf_end
  Mmap image_;  // the inflated copy elf_ reads, if any (outlives elf_)
  std::unique_ptr<Elf, ElfCloser> elf_;
  std::string build_id_;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  bool pie_ = false;
  std::vector<LoadSegment> segments_;
};

}  // namespace strobe::symbolize
