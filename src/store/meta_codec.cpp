#include "store/meta_codec.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <type_traits>
#include <variant>

namespace strobe::store {
namespace {

using model::Meta;
using Member =
    std::variant<int32_t Meta::*, uint32_t Meta::*, uint64_t Meta::*, std::string Meta::*>;

struct Field {
  const char* key;
  Member member;
};

// Every Meta field except `command`, which has its own encoding.
constexpr Field kFields[] = {
    {"pid", &Meta::pid},
    {"start_realtime_ns", &Meta::start_realtime_ns},
    {"start_monotonic_ns", &Meta::start_monotonic_ns},
    {"duration_ns", &Meta::duration_ns},
    {"frequency", &Meta::frequency},
    {"event", &Meta::event},
    {"call_graph", &Meta::call_graph},
    {"stack_copy_bytes", &Meta::stack_copy_bytes},
    {"hostname", &Meta::hostname},
    {"kernel", &Meta::kernel},
    {"strobe_version", &Meta::strobe_version},
    {"lost_samples", &Meta::lost_samples},
    {"throttle_events", &Meta::throttle_events},
    {"throttled_ns", &Meta::throttled_ns},
    {"throttle_weighted_ns", &Meta::throttle_weighted_ns},
    {"unsampled_threads", &Meta::unsampled_threads},
    {"unsampled_count", &Meta::unsampled_count},
    {"target_cpu_ns", &Meta::target_cpu_ns},
    {"refused_threads", &Meta::refused_threads},
    {"refused_reason", &Meta::refused_reason},
    {"exit_status", &Meta::exit_status},
    {"sample_period", &Meta::sample_period},
    {"target", &Meta::target},
    {"target_system_ns", &Meta::target_system_ns},
    {"kernel_time", &Meta::kernel_time},
    {"kernel_refused", &Meta::kernel_refused},
    {"dropped_spans", &Meta::dropped_spans},
    {"off_cpu", &Meta::off_cpu},
    {"off_cpu_min_ns", &Meta::off_cpu_min_ns},
    {"off_cpu_short_count", &Meta::off_cpu_short_count},
    {"off_cpu_short_ns", &Meta::off_cpu_short_ns},
    {"switch_records_lost", &Meta::switch_records_lost},
    {"switch_unpaired", &Meta::switch_unpaired},
    {"incomplete", &Meta::incomplete},
    {"stopped_reason", &Meta::stopped_reason},
    {"source", &Meta::source},
    {"cpu", &Meta::cpu},
    {"engine", &Meta::engine},
};

template <typename T>
bool parseNumber(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

std::string isoTime(uint64_t realtime_ns) {
  auto secs = static_cast<std::time_t>(realtime_ns / 1'000'000'000U);
  std::tm tm{};
  if (gmtime_r(&secs, &tm) == nullptr) return "";
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03uZ", buf,
                static_cast<unsigned>(realtime_ns / 1'000'000U % 1000U));
  return out;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads the 4 hex digits after "\u" at s[i]; advances i. -1 when malformed.
long readHex4(std::string_view s, size_t& i) {
  if (i + 4 > s.size()) return -1;
  long v = 0;
  for (size_t k = 0; k < 4; ++k) {
    int d = hexDigit(s[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  i += 4;
  return v;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Parses one JSON string starting at the opening quote s[i]; advances i past
// the closing quote. False when malformed.
bool parseString(std::string_view s, size_t& i, std::string& out) {
  if (i >= s.size() || s[i] != '"') return false;
  ++i;
  while (i < s.size()) {
    char c = s[i++];
    if (c == '"') return true;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i >= s.size()) return false;
    char e = s[i++];
    switch (e) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        long cp = readHex4(s, i);
        if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate needs its low half
          if (i + 2 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return false;
          i += 2;
          long lo = readHex4(s, i);
          if (lo < 0xDC00 || lo > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        appendUtf8(out, static_cast<uint32_t>(cp));
        break;
      }
      default:
        return false;
    }
  }
  return false;  // no closing quote
}

void skipSpace(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
}

}  // namespace

std::string encodeCommand(const std::vector<std::string>& argv) {
  std::string out = "[";
  for (size_t a = 0; a < argv.size(); ++a) {
    if (a > 0) out.push_back(',');
    out.push_back('"');
    for (char c : argv[a]) {
      auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out.push_back('\\');
        out.push_back(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (u < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out += buf;
      } else {
        out.push_back(c);
      }
    }
    out.push_back('"');
  }
  out.push_back(']');
  return out;
}

std::optional<std::vector<std::string>> decodeCommand(std::string_view json) {
  std::vector<std::string> argv;
  size_t i = 0;
  skipSpace(json, i);
  if (i >= json.size() || json[i++] != '[') return std::nullopt;
  skipSpace(json, i);
  if (i < json.size() && json[i] == ']') {
    ++i;
  } else {
    for (;;) {
      skipSpace(json, i);
      if (!parseString(json, i, argv.emplace_back())) return std::nullopt;
      skipSpace(json, i);
      if (i >= json.size()) return std::nullopt;
      char c = json[i++];
      if (c == ']') break;
      if (c != ',') return std::nullopt;
    }
  }
  skipSpace(json, i);
  if (i != json.size()) return std::nullopt;
  return argv;
}

std::vector<std::pair<std::string, std::string>> metaRows(const Meta& meta, int schema_version) {
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("schema_version", std::to_string(schema_version));
  rows.emplace_back("command", encodeCommand(meta.command));
  for (const Field& f : kFields) {
    std::string value = std::visit(
        [&](auto member) -> std::string {
          if constexpr (std::is_same_v<decltype(member), std::string Meta::*>) {
            return meta.*member;
          } else {
            return std::to_string(meta.*member);
          }
        },
        f.member);
    rows.emplace_back(f.key, std::move(value));
  }
  rows.emplace_back("start_time_utc", isoTime(meta.start_realtime_ns));
  return rows;
}

std::optional<std::string> applyMetaRow(Meta& meta, std::string_view key, std::string_view value) {
  if (key == "command") {
    auto argv = decodeCommand(value);
    if (!argv) return "not a JSON array of strings";
    meta.command = std::move(*argv);
    return std::nullopt;
  }
  for (const Field& f : kFields) {
    if (key != f.key) continue;
    return std::visit(
        [&](auto member) -> std::optional<std::string> {
          using T = std::remove_reference_t<decltype(meta.*member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            meta.*member = std::string(value);
            return std::nullopt;
          } else {
            if (parseNumber(value, meta.*member)) return std::nullopt;
            return std::is_signed_v<T> ? "not a 32-bit integer"
                   : sizeof(T) == 4    ? "not a 32-bit unsigned integer"
                                       : "not a 64-bit unsigned integer";
          }
        },
        f.member);
  }
  return std::nullopt;
}

}  // namespace strobe::store
