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

namespace {
constexpr size_t kNone = std::string_view::npos;
}  // namespace

Kallsyms Kallsyms::parse(std::string_view text) {
  Kallsyms k;
  k.owned_.assign(text);
  build(k, false);
  return k;
}

Kallsyms Kallsyms::parseWhole(std::string_view text) {
  Kallsyms k;
  k.owned_.assign(text);
  build(k, true);
  return k;
}

std::optional<Kallsyms::Line> Kallsyms::parseLine(const char* line, size_t len) {
  // "ffffffff81000000 T _stext" or "... t name\t[module]"
  const auto* sp = static_cast<const char*>(std::memchr(line, ' ', len));
  if (sp == nullptr) return std::nullopt;
  const auto sp1 = static_cast<size_t>(sp - line);
  if (sp1 + 3 > len || line[sp1 + 2] != ' ') return std::nullopt;
  Line l;
  auto [end, ec] = std::from_chars(line, line + sp1, l.address, 16);
  if (ec != std::errc() || end != line + sp1) return std::nullopt;
  l.type = line[sp1 + 1];
  l.name = sp1 + 3;
  l.name_len = len - l.name;
  const auto* tab_char = static_cast<const char*>(std::memchr(line + l.name, '\t', l.name_len));
  if (tab_char != nullptr) l.tab_at = static_cast<size_t>(tab_char - (line + l.name));
  return l;
}

bool Kallsyms::names(const Line& l) {
  const bool code = l.type == 't' || l.type == 'T' || l.type == 'w' || l.type == 'W';
  return code && l.address != 0 && l.name_len > 0 && l.tab_at != 0;  // tab 0: no name
}

bool Kallsyms::parseLines(Kallsyms& k, size_t from, size_t to, bool modules_only, size_t& listed) {
  // Names stay where they are in the text; a module's symbol, "name\t[module]"
  // in the text, is named "name [module]", a copy in composed_.
  const char* base = k.text().data();
  k.symbols_.reserve((to - from) / 40);  // a line is about 40 bytes; most name code
  for (size_t at = from; at < to;) {
    const char* line = base + at;
    const auto* nl = static_cast<const char*>(std::memchr(line, '\n', to - at));
    const size_t len = nl != nullptr ? static_cast<size_t>(nl - line) : to - at;
    const size_t line_at = at;
    at += len + 1;
    if (modules_only && len > 0 && std::memchr(line, '\t', len) == nullptr) return false;
    const std::optional<Line> l = parseLine(line, len);
    if (!l) continue;
    ++listed;
    if (!names(*l)) continue;
    if (l->tab_at == kNone) {
      k.symbols_.push_back(Symbol{l->address, static_cast<uint32_t>(line_at + l->name),
                                  static_cast<uint32_t>(l->name_len)});
      continue;
    }
    // "name [module]", written out beside the text.
    if (k.composed_.size() + l->name_len > UINT32_MAX) continue;
    const auto at_composed = static_cast<uint32_t>(k.composed_.size());
    k.composed_.append(line + l->name, l->name_len);
    k.composed_[at_composed + l->tab_at] = ' ';
    k.symbols_.push_back(
        Symbol{l->address, at_composed, static_cast<uint32_t>(l->name_len) | kComposed});
  }
  auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  // Ties keep the text's order: lookups name the last of them.
  if (!std::is_sorted(k.symbols_.begin(), k.symbols_.end(), by_address)) {
    std::stable_sort(k.symbols_.begin(), k.symbols_.end(), by_address);
  }
  return true;
}

void Kallsyms::build(Kallsyms& k, bool whole) {
  if (k.text().size() > kComposed) return;  // offsets are 31 bits
  if (!whole && buildIndex(k)) {
    k.indexed_ = true;
    return;
  }
  k.symbols_.clear();
  k.composed_.clear();
  k.kernel_end_ = 0;
  k.kernel_code_ = false;
  k.last_code_ = 0;
  k.last_code_address_ = 0;
  size_t listed = 0;
  parseLines(k, 0, k.text().size(), false, listed);
  k.hidden_ = listed > 0 && k.symbols_.empty();
}

bool Kallsyms::buildIndex(Kallsyms& k) {
  const std::string_view t = k.text();
  // The kernel's own lines end where the first line with a tab (a module's)
  // starts: every line after it has one too.
  size_t end = t.size();
  for (size_t lo = 0, hi = t.size(); lo < hi;) {
    const size_t mid = lo + (hi - lo) / 2;
    const size_t at = k.lineStartFrom(mid);
    if (at >= hi) {  // no line starts in [mid, hi)
      hi = mid;
    } else if (std::memchr(t.data() + at, '\t', k.lineEnd(at) - at) != nullptr) {
      end = hi = at;
    } else {
      lo = k.nextLine(at);
    }
  }
  k.kernel_end_ = end;
  size_t listed = 0;
  if (!parseLines(k, end, t.size(), true, listed)) return false;
  if (!k.kernelLinesLookSorted()) return false;
  // The kernel's last text symbol: lookups above it (modules') need no search.
  for (size_t at = end; at > 0;) {
    at = k.previousLine(at);
    const std::optional<Line> l = k.lineAt(at);
    if (!l) continue;
    ++listed;
    if (l->address == 0) break;  // and so are all before it
    if (names(*l)) {
      k.kernel_code_ = true;
      k.last_code_ = at;
      k.last_code_address_ = l->address;
      break;
    }
  }
  k.hidden_ = listed > 0 && k.empty();
  return true;
}

bool Kallsyms::kernelLinesLookSorted() const {
  // Every line of the first and last 16 KiB (all of a small text), and one
  // at each 64th of the way between: not a proof, but the kernel keeps this
  // part sorted (its own lookups search it by bisection), and a file edited
  // out of order (a copy moved to other addresses, wrapping some) shows it at
  // its ends.
  constexpr size_t kEdge = size_t{16} << 10;
  constexpr size_t kProbes = 64;
  const std::string_view t = text();
  uint64_t previous = 0;
  size_t at = 0;
  // Checks the lines that start in [from, to), and at least the first at or
  // after `from`.
  auto check = [&](size_t from, size_t to) {
    if (at < from) at = lineStartFrom(from);
    do {
      if (at >= kernel_end_) return true;
      const size_t e = lineEnd(at);
      if (std::memchr(t.data() + at, '\t', e - at) != nullptr) return false;
      if (const std::optional<Line> l = parseLine(t.data() + at, e - at)) {
        if (l->address < previous) return false;
        previous = l->address;
      }
      at = nextLine(at);
    } while (at < to);
    return true;
  };
  if (!check(0, kEdge)) return false;
  for (size_t i = 1; i < kProbes; ++i) {
    const size_t probe = kernel_end_ / kProbes * i;
    if (!check(probe, probe + 1)) return false;
  }
  return check(kernel_end_ > kEdge ? kernel_end_ - kEdge : 0, kernel_end_);
}

size_t Kallsyms::lineEnd(size_t at) const {
  const std::string_view t = text();
  const auto* nl = static_cast<const char*>(std::memchr(t.data() + at, '\n', t.size() - at));
  return nl != nullptr ? static_cast<size_t>(nl - t.data()) : t.size();
}

size_t Kallsyms::nextLine(size_t at) const {
  return std::min(lineEnd(at) + 1, text().size());
}

size_t Kallsyms::previousLine(size_t at) const {
  // The previous line ends at at - 1 (its '\n', or the text's last byte).
  const std::string_view t = text();
  if (at <= 1) return 0;
  const void* nl = ::memrchr(t.data(), '\n', at - 1);
  return nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - t.data()) + 1 : 0;
}

size_t Kallsyms::lineStartFrom(size_t at) const {
  const std::string_view t = text();
  if (at == 0 || at >= t.size() || t[at - 1] == '\n') return std::min(at, t.size());
  return nextLine(at);
}

std::optional<Kallsyms::Line> Kallsyms::lineAt(size_t at) const {
  return parseLine(text().data() + at, lineEnd(at) - at);
}

size_t Kallsyms::kernelFloorLine(uint64_t address) const {
  // Bisection over the line starts in [lo, hi); malformed lines are passed
  // over, as a parse skips them.
  size_t found = kNone;
  for (size_t lo = 0, hi = kernel_end_; lo < hi;) {
    const size_t mid = lo + (hi - lo) / 2;
    size_t at = lineStartFrom(mid);
    std::optional<Line> l;
    while (at < hi && !(l = lineAt(at))) at = nextLine(at);
    if (at >= hi) {  // no well-formed line starts in [mid, hi)
      hi = mid;
    } else if (l->address <= address) {
      found = at;
      lo = nextLine(at);
    } else {
      hi = at;
    }
  }
  return found;
}

Kallsyms::KernelHit Kallsyms::kernelAround(uint64_t address, bool want_next) const {
  KernelHit h;
  if (!kernel_code_) return h;
  if (address >= last_code_address_) {  // and no text symbol of the kernel's above it
    h.line = last_code_;
    h.address = last_code_address_;
    return h;
  }
  const size_t floor = kernelFloorLine(address);
  // Back to the nearest text symbol (the last of those at its address).
  for (size_t at = floor; at != kNone; at = at > 0 ? previousLine(at) : kNone) {
    const std::optional<Line> l = lineAt(at);
    if (!l) continue;
    if (l->address == 0) break;  // and so are all before it
    if (names(*l)) {
      h.line = at;
      h.address = l->address;
      break;
    }
  }
  if (want_next) {
    // On to the next one: there is one, the last (above `address`).
    for (size_t at = floor == kNone ? 0 : nextLine(floor); at < kernel_end_; at = nextLine(at)) {
      const std::optional<Line> l = lineAt(at);
      if (l && names(*l) && l->address > address) {
        h.next = l->address;
        break;
      }
    }
  }
  return h;
}

Result<Kallsyms> Kallsyms::load(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return systemError("cannot open " + path, {}, ErrorKind::kNotFound);
  Kallsyms k;
  // A copy in a file (perf's build-id cache) is mapped: its text is the
  // page cache's, not a copy. Not populated: lookups read a few pages of it.
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (p != MAP_FAILED) {
      k.mapped_ = Mmap(p, size);
      build(k, false);
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
  build(k, false);
  return k;
}

void Kallsyms::releasePages() const {
  if (mapped_.valid()) ::madvise(mapped_.data(), mapped_.size(), MADV_DONTNEED);
}

std::optional<std::string_view> Kallsyms::lookup(uint64_t address) const {
  const KernelHit kernel = kernelAround(address, false);
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  // At one address a module's symbol comes after the kernel's: it is the one.
  if (it != symbols_.begin() &&
      (kernel.line == kNone || std::prev(it)->address >= kernel.address)) {
    --it;
    if ((it->size & kComposed) != 0) {
      return std::string_view(composed_).substr(it->name, it->size & ~kComposed);
    }
    return text().substr(it->name, it->size);
  }
  if (kernel.line == kNone) return std::nullopt;
  const std::optional<Line> l = lineAt(kernel.line);
  return text().substr(kernel.line + l->name, l->name_len);
}

std::optional<Kallsyms::Range> Kallsyms::range(uint64_t address) const {
  const KernelHit kernel = kernelAround(address, true);
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin() && kernel.line == kNone) return std::nullopt;
  if (it == symbols_.end() && !kernel.next) return std::nullopt;
  Range r;
  r.start = it == symbols_.begin() ? kernel.address
            : kernel.line == kNone ? std::prev(it)->address
                                   : std::max(std::prev(it)->address, kernel.address);
  r.end = it == symbols_.end() ? *kernel.next
          : !kernel.next       ? it->address
                               : std::min(it->address, *kernel.next);
  return r;
}

std::string kptrRestrictHint(int kptr_restrict) {
  std::string now =
      kptr_restrict >= 0 ? " (kernel.kptr_restrict is " + std::to_string(kptr_restrict) + ")" : "";
  return "kernel symbol addresses are hidden" + now +
         ": run: sudo sysctl kernel.kptr_restrict=0, or record as root";
}

}  // namespace strobe::symbolize
