#include "symbolize/inflate_sections.hpp"

#include <elf.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

namespace strobe::symbolize {
namespace {

constexpr uint32_t kCompressZlib = 1;  // ELFCOMPRESS_ZLIB
constexpr uint32_t kCompressZstd = 2;  // ELFCOMPRESS_ZSTD (newer than some <elf.h>)
// zlib cannot expand more than about 1032:1; zstd's limit is higher but a
// debug section that claims more than this is not worth a try.
constexpr uint64_t kMaxRatio = 2048;
constexpr uint64_t kMaxSectionSize = uint64_t{4} << 30;
// Below this much output, a second thread costs more than it saves.
constexpr uint64_t kParallelThreshold = uint64_t{4} << 20;

// Debug sections strobe never reads (variable locations, macros, name
// indexes): hidden rather than inflated.
bool unread(std::string_view name) {
  for (std::string_view n :
       {".debug_loc", ".debug_loclists", ".debug_macro", ".debug_macinfo", ".debug_pubnames",
        ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes"}) {
    if (name == n) return true;
  }
  return false;
}

struct Job {
  size_t section;
  const uint8_t* in;
  size_t in_size;
  uint32_t type;
  uint64_t out_offset;  // in the new image
  uint64_t out_size;
  bool ok = false;
};

void runJobs(std::vector<Job*>& jobs, uint8_t* image) {
  libdeflate_decompressor* d = nullptr;
  for (Job* j : jobs) {
    uint8_t* out = image + j->out_offset;
    if (j->type == kCompressZlib) {
      if (d == nullptr) d = libdeflate_alloc_decompressor();
      if (d == nullptr) continue;
      j->ok = libdeflate_zlib_decompress(d, j->in, j->in_size, out, j->out_size, nullptr) ==
              LIBDEFLATE_SUCCESS;
    } else {
      size_t n = ZSTD_decompress(out, j->out_size, j->in, j->in_size);
      j->ok = ZSTD_isError(n) == 0 && n == j->out_size;
    }
  }
  if (d != nullptr) libdeflate_free_decompressor(d);
}

Error corrupt(const std::string& path, const std::string& what) {
  return makeError(path + ": " + what, "check that the file is a complete ELF binary",
                   ErrorKind::kCorrupt);
}

}  // namespace

Result<InflatedImage> inflateDebugSections(const uint8_t* raw, size_t size,
                                           const std::string& path) {
  Elf64_Ehdr eh;
  if (size < sizeof eh) return InflatedImage{};
  std::memcpy(&eh, raw, sizeof eh);
  const bool native = eh.e_ident[EI_DATA] ==
                      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      !native || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0) {
    return InflatedImage{};
  }
  auto fits = [&](uint64_t off, uint64_t n) { return off <= size && n <= size - off; };
  if (!fits(eh.e_shoff, sizeof(Elf64_Shdr))) return InflatedImage{};
  std::vector<Elf64_Shdr> sh(1);
  std::memcpy(sh.data(), raw + eh.e_shoff, sizeof(Elf64_Shdr));
  uint64_t shnum = eh.e_shnum != 0 ? eh.e_shnum : sh[0].sh_size;  // extended numbering
  uint32_t shstrndx = eh.e_shstrndx != SHN_XINDEX ? eh.e_shstrndx : sh[0].sh_link;
  if (shnum == 0 || shnum > size / sizeof(Elf64_Shdr) ||
      !fits(eh.e_shoff, shnum * sizeof(Elf64_Shdr)) || shstrndx >= shnum) {
    return InflatedImage{};
  }
  sh.resize(shnum);
  std::memcpy(sh.data(), raw + eh.e_shoff, shnum * sizeof(Elf64_Shdr));
  // By value: the table is rewritten below.
  const uint64_t strs_offset = sh[shstrndx].sh_offset;
  const uint64_t strs_size = sh[shstrndx].sh_size;
  if (sh[shstrndx].sh_type == SHT_NOBITS || !fits(strs_offset, strs_size)) return InflatedImage{};
  auto nameOf = [&](const Elf64_Shdr& s) -> std::string_view {
    if (s.sh_name >= strs_size) return {};
    const char* p = reinterpret_cast<const char*>(raw + strs_offset + s.sh_name);
    return {p, strnlen(p, strs_size - s.sh_name)};
  };

  // Plan: where every section's bytes go in the copy, which to inflate.
  std::vector<Job> jobs;
  std::vector<size_t> copied;  // sections whose bytes are copied as they are
  uint64_t end = sizeof eh;
  auto place = [&](uint64_t align, uint64_t n) {
    if (align == 0 || (align & (align - 1)) != 0) align = 1;
    end = (end + align - 1) & ~(align - 1);
    uint64_t at = end;
    end += n;
    return at;
  };
  bool changed = false;
  for (size_t i = 1; i < shnum; ++i) {
    Elf64_Shdr& s = sh[i];
    if (s.sh_type == SHT_NOBITS || s.sh_size == 0) continue;
    if (!fits(s.sh_offset, s.sh_size)) return InflatedImage{};  // libelf will say so
    std::string_view name = nameOf(s);
    const bool compressed = (s.sh_flags & SHF_COMPRESSED) != 0;
    if (compressed && name.substr(0, 7) == ".debug_" && unread(name)) {
      s.sh_name = 0;  // "": libdw no longer knows the section
      s.sh_type = SHT_NOBITS;
      changed = true;
      continue;
    }
    if (!compressed || name.substr(0, 7) != ".debug_") {
      copied.push_back(i);
      s.sh_offset = place(s.sh_addralign, s.sh_size);
      continue;
    }
    Elf64_Chdr ch;
    if (s.sh_size < sizeof ch) {
      return corrupt(path, "section " + std::string(name) + " is too short to be compressed");
    }
    std::memcpy(&ch, raw + s.sh_offset, sizeof ch);
    if (ch.ch_type != kCompressZlib && ch.ch_type != kCompressZstd) {
      return corrupt(path, "section " + std::string(name) + " uses unknown compression type " +
                               std::to_string(ch.ch_type));
    }
    const uint64_t in_size = s.sh_size - sizeof ch;
    if (ch.ch_size > kMaxSectionSize || ch.ch_size > (in_size + 1) * kMaxRatio) {
      return corrupt(path, "section " + std::string(name) + " claims an implausible size (" +
                               std::to_string(ch.ch_size) + " bytes)");
    }
    const uint64_t at = place(std::max<uint64_t>(ch.ch_addralign, 8), ch.ch_size);
    jobs.push_back(Job{i, raw + s.sh_offset + sizeof ch, in_size, ch.ch_type, at, ch.ch_size});
    s.sh_offset = at;
    s.sh_size = ch.ch_size;
    s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
    s.sh_addralign = ch.ch_addralign;
    changed = true;
  }
  if (!changed) return InflatedImage{};
  const uint64_t shoff = place(8, shnum * sizeof(Elf64_Shdr));

  // Huge pages where the kernel offers them on request; the mapping comes
  // zeroed, so the gaps between pieces need no filling.
  constexpr uint64_t kHuge = uint64_t{2} << 20;
  const uint64_t mapped = (end + kHuge - 1) & ~(kHuge - 1);
  void* mem = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return makeError(path + ": no memory for its decompressed debug sections (" +
                         std::to_string(end) + " bytes)",
                     {}, ErrorKind::kGeneric);
  }
  ::madvise(mem, mapped, MADV_HUGEPAGE);
  InflatedImage img{Mmap(mem, mapped), end};
  for (size_t i : copied) {
    // The original offset: the copy's header table is not written yet.
    Elf64_Shdr orig;
    std::memcpy(&orig, raw + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof orig);
    std::memcpy(img.bytes() + sh[i].sh_offset, raw + orig.sh_offset, orig.sh_size);
  }

  // Largest first, greedily over at most two workers.
  std::vector<Job*> order;
  uint64_t total = 0;
  for (Job& j : jobs) {
    order.push_back(&j);
    total += j.out_size;
  }
  std::sort(order.begin(), order.end(),
            [](const Job* a, const Job* b) { return a->out_size > b->out_size; });
  const bool parallel = total >= kParallelThreshold && std::thread::hardware_concurrency() > 1;
  if (parallel) {
    std::vector<Job*> mine;
    std::vector<Job*> other;
    uint64_t mine_bytes = 0;
    uint64_t other_bytes = 0;
    for (Job* j : order) {
      if (mine_bytes <= other_bytes) {
        mine.push_back(j);
        mine_bytes += j->out_size;
      } else {
        other.push_back(j);
        other_bytes += j->out_size;
      }
    }
    std::thread helper([&] { runJobs(other, img.bytes()); });
    runJobs(mine, img.bytes());
    helper.join();
  } else {
    runJobs(order, img.bytes());
  }
  for (const Job& j : jobs) {
    if (!j.ok) {
      return corrupt(path, "section " + std::string(nameOf(sh[j.section])) +
                               " does not decompress to the size its header states");
    }
  }

  eh.e_shoff = shoff;
  eh.e_phoff = 0;
  eh.e_phnum = 0;
  std::memcpy(img.bytes(), &eh, sizeof eh);
  std::memcpy(img.bytes() + shoff, sh.data(), shnum * sizeof(Elf64_Shdr));
  return img;
}

}  // namespace strobe::symbolize
