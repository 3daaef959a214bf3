#include "output/file_buffer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace strobe::output {

void appendJsonString(std::string& out, std::string_view s) {
  // RapidJSON's own escaping, so names read the same in every JSON format.
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  out.append(sb.GetString(), sb.GetSize());
}

}  // namespace strobe::output
