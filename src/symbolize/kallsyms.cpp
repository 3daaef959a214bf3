#include "symbolize/kallsyms.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "base/fd.hpp"

namespace strobe::symbolize {

Kallsyms Kallsyms::parse(std::string_view text) {
  Kallsyms k;
  size_t listed = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // "ffffffff81000000 T _stext" or "... t name\t[module]"
    size_t sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 + 3 > line.size() || line[sp1 + 2] != ' ') continue;
    uint64_t addr = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + sp1, addr, 16);
    if (ec != std::errc() || end != line.data() + sp1) continue;
    char type = line[sp1 + 1];
    std::string_view rest = line.substr(sp1 + 3);
    ++listed;
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
    if (addr == 0) continue;
    std::string name;
    size_t tab = rest.find('\t');
    if (tab == std::string_view::npos) {
      name = std::string(rest);
    } else {
      name = std::string(rest.substr(0, tab));
      std::string_view mod = rest.substr(tab + 1);
      if (!mod.empty()) name += " " + std::string(mod);
    }
    if (name.empty()) continue;
    k.symbols_.push_back(Symbol{addr, std::move(name)});
  }
  k.hidden_ = listed > 0 && k.symbols_.empty();
  std::stable_sort(k.symbols_.begin(), k.symbols_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  return k;
}

Result<Kallsyms> Kallsyms::load(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return systemError("cannot open " + path, {}, ErrorKind::kNotFound);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read " + path);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return parse(text);
}

std::optional<std::string_view> Kallsyms::lookup(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  return std::string_view(it->name);
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
