#include "record/options.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "base/duration.hpp"

namespace strobe::record {

Result<uint64_t> parseSessionDuration(std::string_view text) {
  auto ns = parseDuration(text);
  if (!ns) return ns;
  if (*ns < 1'000'000 || *ns > 1'000'000'000'000'000'000ULL) {
    return makeError("duration '" + std::string(text) + "' is out of range",
                     "give at least 1ms and at most a few years", ErrorKind::kUsage);
  }
  return ns;
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
