#include "output/json_csv.hpp"

#include "output/utf8.hpp"

namespace strobe::output {

void jsonString(JsonWriter& w, const std::string& s) {
  std::string scratch;
  std::string_view v = validUtf8(s, scratch);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

std::string csvField(const std::string& s) {
  std::string v = s;
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
