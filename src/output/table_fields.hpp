// How the table writers (json and csv of report, --spans and diff;
// speedscope's names) write one field: a JSON string through RapidJSON's
// writer, invalid UTF-8 as U+FFFD; a CSV field quoted as RFC 4180 says
// (fields with a comma, quote or line break; quotes doubled), with a
// leading ' before = + - @ so that spreadsheets do not evaluate it.
// Thread safety: pure functions.
#pragma once

#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "output/utf8.hpp"

namespace strobe::output {

template <typename Writer>
void jsonString(Writer& w, std::string_view s) {
  std::string scratch;
  std::string_view v = validUtf8(s, scratch);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

inline std::string csvField(std::string_view s) {
  std::string v(s);
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v = "'" + v;
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace strobe::output
