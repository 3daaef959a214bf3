// What the JSON and CSV writers share: a string written as a valid UTF-8
// JSON string (through RapidJSON's writer, invalid bytes as U+FFFD), and a
// CSV field quoted as RFC 4180 says, with formula-like fields neutralized.
// Thread safety: pure; the writer is the caller's.
#pragma once

#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <string>

namespace strobe::output {

using JsonWriter = rapidjson::Writer<rapidjson::FileWriteStream>;

// `s` as a JSON string value.
void jsonString(JsonWriter& w, const std::string& s);

// RFC 4180: fields with a comma, quote or line break are quoted, quotes
// doubled. Fields starting with = + - @ get a leading ' so that
// spreadsheets do not run them as formulas.
std::string csvField(const std::string& s);

}  // namespace strobe::output
