#include "symbolize/debug_file.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <zlib.h>

#include <cstring>
#include <fstream>

#include "symbolize/debuginfod.hpp"
#include "symbolize/elf_file.hpp"

namespace strobe::symbolize {
namespace {

Elf_Scn* findSection(Elf* e, std::string_view name) {
  size_t shstrndx = 0;
  if (e == nullptr || ::elf_getshdrstrndx(e, &shstrndx) != 0) return nullptr;
  for (Elf_Scn* s = ::elf_nextscn(e, nullptr); s != nullptr; s = ::elf_nextscn(e, s)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(s, &sh) == nullptr || sh.sh_type == SHT_NOBITS) continue;
    const char* n = ::elf_strptr(e, shstrndx, sh.sh_name);
    if (n != nullptr && name == n) return s;
  }
  return nullptr;
}

struct DebugLink {
  std::string name;
  uint32_t crc = 0;
};

std::optional<DebugLink> debugLink(const ElfFile& elf) {
  Elf_Scn* s = findSection(elf.elf(), ".gnu_debuglink");
  Elf_Data* d = s != nullptr ? ::elf_getdata(s, nullptr) : nullptr;
  if (d == nullptr || d->d_buf == nullptr || d->d_size < 8) return std::nullopt;
  const auto* p = static_cast<const char*>(d->d_buf);
  size_t len = ::strnlen(p, d->d_size);
  size_t crc_at = (len + 4) & ~size_t{3};  // the NUL, then padding to 4
  if (len == 0 || crc_at + 4 > d->d_size) return std::nullopt;
  DebugLink link{std::string(p, len), 0};
  std::memcpy(&link.crc, p + crc_at, 4);  // in the file's byte order; x86-64 and aarch64 are LE
  if (link.name.find('/') != std::string::npos) return std::nullopt;  // a name, not a path
  return link;
}

uint32_t fileCrc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uLong crc = ::crc32(0L, Z_NULL, 0);
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(buf), static_cast<uInt>(in.gcount()));
  }
  return static_cast<uint32_t>(crc);
}

bool acceptable(const ElfFile& main, const std::string& path, const DebugLink* link) {
  if (path == main.path()) return false;
  auto f = ElfFile::open(path);
  if (!f || !hasSection(*f, ".debug_info")) return false;
  if (!main.buildId().empty()) return f->buildId() == main.buildId();
  return link != nullptr && fileCrc(path) == link->crc;
}

std::string dirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

bool hasSection(const ElfFile& elf, std::string_view name) {
  return findSection(elf.elf(), name) != nullptr;
}

std::optional<std::string> findDebugFile(const ElfFile& elf,
                                         const std::vector<std::string>& debug_roots) {
  const std::string& id = elf.buildId();
  if (id.size() > 2) {
    for (const std::string& root : debug_roots) {
      std::string path = root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
      if (acceptable(elf, path, nullptr)) return path;
    }
  }
  if (auto link = debugLink(elf)) {
    std::string dir = dirOf(elf.path());
    std::vector<std::string> candidates = {dir + "/" + link->name, dir + "/.debug/" + link->name};
    for (const std::string& root : debug_roots) candidates.push_back(root + dir + "/" + link->name);
    for (const std::string& path : candidates) {
      if (acceptable(elf, path, &*link)) return path;
    }
  }
  // Last, and only when the user named servers: the network.
  if (auto fetched = debuginfodDebugFile(id); fetched && acceptable(elf, *fetched, nullptr)) {
    return fetched;
  }
  return std::nullopt;
}

}  // namespace strobe::symbolize
