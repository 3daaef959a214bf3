#include "symbolize/kallsyms.hpp"

#include <fcntl.h>
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
  return parseOwned(std::string(text));
}

Kallsyms Kallsyms::parseOwned(std::string text) {
  Kallsyms k;
  // Names stay where they are in the text; a module's symbol, "name\t[module]"
  // in the text, is named "name [module]" (tab to space) in place.
  k.names_ = std::move(text);
  char* base = k.names_.data();
  const size_t size = k.names_.size();
  if (size > UINT32_MAX) return k;
  size_t listed = 0;
  for (size_t at = 0; at < size;) {
    char* line = base + at;
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
    char* name = line + sp1 + 3;
    auto* tab = static_cast<char*>(std::memchr(name, '\t', len - sp1 - 3));
    if (tab == name) continue;  // no name before the module
    if (tab != nullptr) *tab = ' ';
    k.symbols_.push_back(Symbol{addr, static_cast<uint32_t>(line_at + sp1 + 3),
                                static_cast<uint32_t>(len - sp1 - 3)});
  }
  k.hidden_ = listed > 0 && k.symbols_.empty();
  auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  // The kernel lists its own symbols in order: sort only what is not.
  if (!std::is_sorted(k.symbols_.begin(), k.symbols_.end(), by_address)) {
    std::stable_sort(k.symbols_.begin(), k.symbols_.end(), by_address);
  }
  return k;
}

Result<Kallsyms> Kallsyms::load(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return systemError("cannot open " + path, {}, ErrorKind::kNotFound);
  // Read into one buffer: a copy in a file says its size (/proc's says 0).
  struct stat st {};
  size_t capacity = 1 << 20;
  if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) capacity = static_cast<size_t>(st.st_size) + 1;
  std::unique_ptr<char[]> buf(new char[capacity]);
  size_t used = 0;
  for (;;) {
    if (used == capacity) {
      std::unique_ptr<char[]> bigger(new char[capacity * 2]);
      std::memcpy(bigger.get(), buf.get(), used);
      buf = std::move(bigger);
      capacity *= 2;
    }
    const ssize_t n = ::read(fd.get(), buf.get() + used, capacity - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read " + path);
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  return parseOwned(std::string(buf.get(), used));
}

std::optional<std::string_view> Kallsyms::lookup(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  return std::string_view(names_).substr(it->name, it->size);
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
