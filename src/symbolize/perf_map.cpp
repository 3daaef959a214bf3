#include "symbolize/perf_map.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace strobe::symbolize {
namespace {

bool parseHex(std::string_view& s, uint64_t* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  if (r.ec != std::errc() || r.ptr == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(r.ptr - s.data()));
  return true;
}

}  // namespace

std::optional<PerfMapLine> parsePerfMapLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  PerfMapLine out;
  if (!parseHex(line, &out.start) || !parseHex(line, &out.size) || line.empty() || line[0] != ' ') {
    return std::nullopt;
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.empty() || out.size == 0 || out.start > UINT64_MAX - out.size) return std::nullopt;
  out.name = line;
  return out;
}

PerfMap PerfMap::parse(std::string_view text) {
  PerfMap m;
  uint32_t order = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto l = parsePerfMapLine(line);
    if (!l) continue;
    m.entries_.push_back(Entry{l->start, l->start + l->size, order++, std::string(l->name)});
  }
  std::stable_sort(m.entries_.begin(), m.entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.start < b.start; });
  return m;
}

Result<PerfMap> PerfMap::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return systemError("cannot open " + path, {}, ErrorKind::kNotFound);
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str());
}

std::optional<std::string_view> PerfMap::lookup(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  // Entries rarely overlap; look a few back for the latest one that covers.
  const Entry* best = nullptr;
  for (int steps = 0; it != entries_.begin() && steps < 16; ++steps) {
    --it;
    if (address < it->end && (best == nullptr || it->order > best->order)) best = &*it;
  }
  if (best == nullptr) return std::nullopt;
  return std::string_view(best->name);
}

}  // namespace strobe::symbolize
