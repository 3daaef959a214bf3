#include "symbolize/kallsyms.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include "base/fd.hpp"

namespace strobe::symbolize {

Kallsyms Kallsyms::parse(std::string_view text) {
  Kallsyms k;
  k.owned_.assign(text);
  parseText(k, k.owned_.data(), k.owned_.size());
  return k;
}

void Kallsyms::parseText(Kallsyms& k, const char* base, size_t size) {
  // Names stay where they are in the text; a module's symbol, "name\t[module]"
  // in the text, is named "name [module]", a copy in composed_.
  if (size > kComposed) return;
  k.symbols_.reserve(size / 40);  // a line is about 40 bytes; most name code
  size_t listed = 0;
  for (size_t at = 0; at < size;) {
    const char* line = base + at;
    const auto* nl = static_cast<const char*>(std::memchr(line, '\n', size - at));
    const size_t len = nl != nullptr ? static_cast<size_t>(nl - line) : size - at;
    const size_t line_at = at;
    at += len + 1;
    // "ffffffff81000000 T _stext" or "... t name\t[module]"
    const auto* sp = static_cast<const char*>(std::memchr(line, ' ', len));
    if (sp == nullptr) continue;
    const auto sp1 = static_cast<size_t>(sp - line);
    if (sp1 + 3 > len || line[sp1 + 2] != ' ') continue;
    uint64_t addr = 0;
    auto [end, ec] = std::from_chars(line, line + sp1, addr, 16);
    if (ec != std::errc() || end != line + sp1) continue;
    const char type = line[sp1 + 1];
    ++listed;
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
    if (addr == 0 || sp1 + 3 == len) continue;
    const char* name = line + sp1 + 3;
    const size_t name_len = len - sp1 - 3;
    const auto* tab = static_cast<const char*>(std::memchr(name, '\t', name_len));
    if (tab == name) continue;  // no name before the module
    if (tab == nullptr) {
      k.symbols_.push_back(
          Symbol{addr, static_cast<uint32_t>(line_at + sp1 + 3), static_cast<uint32_t>(name_len)});
      continue;
    }
    // "name [module]", written out beside the text.
    if (k.composed_.size() + name_len > UINT32_MAX) continue;
    const auto at_composed = static_cast<uint32_t>(k.composed_.size());
    k.composed_.append(name, name_len);
    k.composed_[at_composed + static_cast<size_t>(tab - name)] = ' ';
    k.symbols_.push_back(Symbol{addr, at_composed, static_cast<uint32_t>(name_len) | kComposed});
  }
  k.hidden_ = listed > 0 && k.symbols_.empty();
  auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  // The kernel lists its own symbols in order: sort only what is not.
  if (!std::is_sorted(k.symbols_.begin(), k.symbols_.end(), by_address)) {
    std::stable_sort(k.symbols_.begin(), k.symbols_.end(), by_address);
  }
}

Result<Kallsyms> Kallsyms::load(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return systemError("cannot open " + path, {}, ErrorKind::kNotFound);
  Kallsyms k;
  // A copy in a file (perf's build-id cache) is mapped: its text is the
  // page cache's, not a copy.
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    // Populated at once: one call in place of a page fault per 64 KiB.
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
    if (p != MAP_FAILED) {
      k.mapped_ = Mmap(p, size);
      parseText(k, static_cast<const char*>(p), size);
      return k;
    }
  }
  // /proc/kallsyms says its size is 0: read it.
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read " + path);
    if (n == 0) break;
    k.owned_.append(buf, static_cast<size_t>(n));
  }
  parseText(k, k.owned_.data(), k.owned_.size());
  return k;
}

std::optional<std::string_view> Kallsyms::lookup(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  if ((it->size & kComposed) != 0) {
    return std::string_view(composed_).substr(it->name, it->size & ~kComposed);
  }
  return text().substr(it->name, it->size);
}

std::optional<Kallsyms::Range> Kallsyms::range(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin() || it == symbols_.end()) return std::nullopt;
  return Range{std::prev(it)->address, it->address};
}

std::string kptrRestrictHint(int kptr_restrict) {
  std::string now =
      kptr_restrict >= 0 ? " (kernel.kptr_restrict is " + std::to_string(kptr_restrict) + ")" : "";
  return "kernel symbol addresses are hidden" + now +
         ": run: sudo sysctl kernel.kptr_restrict=0, or record as root";
}

}  // namespace strobe::symbolize
