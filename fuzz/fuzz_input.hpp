// What the fuzz targets share: splitting one input into parts, a file
// that holds bytes in memory (memfd) for parsers that open paths, and a
// small ELF image writer so a target can wrap fuzzed section bytes in a
// valid ELF file and let the fuzzer spend its time on the section.
//
// Owns: each MemFile its descriptor (closed on destruction). Thread safety:
// plain values. Used only by fuzz targets and their replay driver.
#pragma once

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::fuzz {

using Bytes = std::span<const uint8_t>;

// The separator of parts in a multi-part input: 4 bytes that real sections
// rarely hold, so mutations inside one part do not move the others.
inline constexpr uint8_t kSeparator[4] = {0xF0, 0x5E, 0xC7, 0x10};

// Splits `data` at each separator into at most `max` parts (the last part
// keeps any further separators). Missing parts are empty.
inline std::vector<Bytes> splitParts(Bytes data, size_t max) {
  std::vector<Bytes> parts;
  size_t start = 0;
  for (size_t i = 0; parts.size() + 1 < max && i + sizeof kSeparator <= data.size();) {
    if (std::memcmp(data.data() + i, kSeparator, sizeof kSeparator) == 0) {
      parts.push_back(data.subspan(start, i - start));
      i += sizeof kSeparator;
      start = i;
    } else {
      ++i;
    }
  }
  parts.push_back(data.subspan(start));
  while (parts.size() < max) parts.emplace_back();
  return parts;
}

// Bytes in an anonymous memory file, opened by path (/proc/self/fd/N) by
// parsers that take one.
class MemFile {
 public:
  explicit MemFile(Bytes bytes) {
    fd_ = ::memfd_create("strobe-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) return;
    size_t at = 0;
    while (at < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + at, bytes.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A path in a directory of this process's own (under $TMPDIR or /tmp, made
// on first use), for parsers that look beside a file for others (SQLite's
// journal, a .gnu_debuglink target): they find nothing of another's there.
inline std::string privatePath(const std::string& name) {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string d =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/strobe-fuzz-XXXXXX";
    if (::mkdtemp(d.data()) == nullptr) std::abort();
    return d;
  }();
  return dir + "/" + name;
}

// Replaces the file at `path` with `bytes`; aborts when it cannot (the
// target could not run).
inline void writeFile(const std::string& path, Bytes bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  for (size_t at = 0; at < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n <= 0) std::abort();
    at += static_cast<size_t>(n);
  }
  ::close(fd);
}

// One section of an ElfImage.
struct Section {
  std::string name;
  Bytes bytes;
  uint32_t type = SHT_PROGBITS;
  uint64_t flags = 0;  // SHF_ALLOC sections get sh_addr == their file offset
  uint32_t link = 0;   // index of the linked section (.symtab -> .strtab)
  uint64_t entsize = 0;
};

// A little-endian x86-64 ELF file (ET_DYN) holding `sections` after the
// headers, with one PT_LOAD that maps the whole file at address 0, so that
// every file offset is also the address (what CFI and DWARF addresses then
// mean). Section indexes: 0 is the null section, sections[i] is i + 1.
inline std::vector<uint8_t> elfImage(const std::vector<Section>& sections) {
  std::vector<uint8_t> out(sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr));
  std::string shstrtab(1, '\0');
  std::vector<Elf64_Shdr> headers(1);  // the null section
  for (const Section& s : sections) {
    while (out.size() % 8 != 0) out.push_back(0);
    Elf64_Shdr h{};
    h.sh_name = static_cast<uint32_t>(shstrtab.size());
    shstrtab += s.name;
    shstrtab += '\0';
    h.sh_type = s.type;
    h.sh_flags = s.flags;
    h.sh_offset = out.size();
    h.sh_addr = (s.flags & SHF_ALLOC) != 0 ? out.size() : 0;
    h.sh_size = s.bytes.size();
    h.sh_link = s.link;
    h.sh_addralign = 1;
    h.sh_entsize = s.entsize;
    if (s.type != SHT_NOBITS) out.insert(out.end(), s.bytes.begin(), s.bytes.end());
    headers.push_back(h);
  }
  Elf64_Shdr names{};
  names.sh_name = static_cast<uint32_t>(shstrtab.size());
  shstrtab += ".shstrtab";
  shstrtab += '\0';
  names.sh_type = SHT_STRTAB;
  names.sh_offset = out.size();
  names.sh_size = shstrtab.size();
  names.sh_addralign = 1;
  out.insert(out.end(), shstrtab.begin(), shstrtab.end());
  headers.push_back(names);
  while (out.size() % 8 != 0) out.push_back(0);

  Elf64_Ehdr e{};
  std::memcpy(e.e_ident, ELFMAG, SELFMAG);
  e.e_ident[EI_CLASS] = ELFCLASS64;
  e.e_ident[EI_DATA] = ELFDATA2LSB;
  e.e_ident[EI_VERSION] = EV_CURRENT;
  e.e_type = ET_DYN;
  e.e_machine = EM_X86_64;
  e.e_version = EV_CURRENT;
  e.e_phoff = sizeof(Elf64_Ehdr);
  e.e_shoff = out.size();
  e.e_ehsize = sizeof(Elf64_Ehdr);
  e.e_phentsize = sizeof(Elf64_Phdr);
  e.e_phnum = 1;
  e.e_shentsize = sizeof(Elf64_Shdr);
  e.e_shnum = static_cast<uint16_t>(headers.size());
  e.e_shstrndx = static_cast<uint16_t>(headers.size() - 1);
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  load.p_offset = 0;
  load.p_vaddr = 0;
  load.p_paddr = 0;
  load.p_filesz = out.size();
  load.p_memsz = out.size();
  load.p_align = 0x1000;
  std::memcpy(out.data(), &e, sizeof e);
  std::memcpy(out.data() + sizeof e, &load, sizeof load);
  const size_t at = out.size();
  out.resize(at + headers.size() * sizeof(Elf64_Shdr));
  std::memcpy(out.data() + at, headers.data(), headers.size() * sizeof(Elf64_Shdr));
  return out;
}

// Reads a little-endian integer of `n` bytes from `in` (fewer when short),
// advancing it; for targets that take a few parameters from the input.
inline uint64_t takeInt(Bytes& in, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && !in.empty(); ++i) {
    v |= static_cast<uint64_t>(in[0]) << (8 * i);
    in = in.subspan(1);
  }
  return v;
}

inline std::string_view asText(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace strobe::fuzz
