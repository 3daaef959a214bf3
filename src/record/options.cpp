#include "record/options.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace strobe::record {

Result<uint64_t> parseDuration(std::string_view text) {
  auto bad = [&] {
    return makeError("malformed duration '" + std::string(text) + "'",
                     "use e.g. 30s, 5m, 1h30m, 250ms or plain seconds (10, 2.5)",
                     ErrorKind::kUsage);
  };
  if (text.empty()) return bad();
  double total_ns = 0;
  std::string_view s = text;
  bool any = false;
  while (!s.empty()) {
    size_t n = 0;
    while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.')) ++n;
    if (n == 0) return bad();
    double value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + n, value);
    if (ec != std::errc() || end != s.data() + n) return bad();
    s.remove_prefix(n);
    size_t u = 0;
    while (u < s.size() && s[u] >= 'a' && s[u] <= 'z') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    double scale = 0;
    if (unit.empty()) {
      if (any || !s.empty()) return bad();  // plain seconds only alone
      scale = 1e9;
    } else if (unit == "h") {
      scale = 3600e9;
    } else if (unit == "m" || unit == "min") {
      scale = 60e9;
    } else if (unit == "s") {
      scale = 1e9;
    } else if (unit == "ms") {
      scale = 1e6;
    } else {
      return bad();
    }
    total_ns += value * scale;
    any = true;
  }
  if (!(total_ns >= 1e6) || total_ns > 1e18) {
    return makeError("duration '" + std::string(text) + "' is out of range",
                     "give at least 1ms and at most a few years", ErrorKind::kUsage);
  }
  return static_cast<uint64_t>(total_ns);
}

Result<std::vector<pid_t>> parsePidList(std::string_view text) {
  std::vector<pid_t> out;
  std::string_view s = text;
  while (true) {
    size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), pid);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || pid <= 0) {
      return makeError("malformed pid list '" + std::string(text) + "'",
                       "give process ids separated by commas: -p 1234 or -p 1234,5678",
                       ErrorKind::kUsage);
    }
    if (std::find(out.begin(), out.end(), pid) == out.end()) out.push_back(pid);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace strobe::record
