#include "output/file_buffer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "output/utf8.hpp"

namespace strobe::output {

void appendJsonString(std::string& out, std::string_view s) {
  // RapidJSON's own escaping, so names read the same in every JSON format.
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  std::string scratch;
  std::string_view v = validUtf8(s, scratch);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  out.append(sb.GetString(), sb.GetSize());
}

}  // namespace strobe::output
