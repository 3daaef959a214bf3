// What strobe's pages (the viewer, html_writer.cpp; strobe diff's compare
// page, diff_html.cpp) embed their data with: unsigned numbers as base64
// digits (viewer/codec.js reads them), JSON strings that are safe inside a
// <script> element, and a table of interned strings ("" is 0; also pprof's
// string table in diff_pprof.cpp). Thread safety: pure functions; a
// StringIds is one thread's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strobe::output {

// An unsigned number in base64 digits, 5 bits each, least significant
// first; 32 in a digit means that more digits follow. Every digit is safe
// inside a JSON string and inside a script element.
template <typename Out>
void appendVlq(Out& out, uint64_t v) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char buf[16];
  size_t n = 0;
  do {
    unsigned d = v & 31;
    v >>= 5;
    if (v != 0) d |= 32;
    buf[n++] = kDigits[d];
  } while (v != 0);
  out.append(std::string_view(buf, n));
}

// A JSON string that is also safe inside <script>: RapidJSON's escaping
// (appendJsonString), then <, >, & and the two JavaScript line separators
// as \uXXXX, which JSON.parse reads back unchanged.
void appendScriptJson(std::string& out, std::string_view s);

// Strings numbered in the order they are first seen; "" is 0.
class StringIds {
 public:
  StringIds() { intern(""); }
  uint32_t intern(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<uint32_t>(list_.size()));
    if (inserted) list_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> list_;
};

}  // namespace strobe::output
