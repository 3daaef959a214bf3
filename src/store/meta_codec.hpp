// Internal to src/store: model::Meta <-> the rows of the `meta` table, and
// the command's encoding (a JSON array of strings, so arguments with spaces,
// quotes or newlines round-trip exactly and SQL users can json_extract()).
// Owns: nothing; pure functions over values. Thread safety: reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/profile.hpp"

namespace strobe::store {

// The key/value rows for every Meta field, plus `schema_version` and
// `start_time_utc` (ISO 8601, informational: the reader ignores it).
std::vector<std::pair<std::string, std::string>> metaRows(const model::Meta& meta,
                                                          int schema_version);

// Applies one row to `meta`. Unknown keys (including schema_version and
// start_time_utc, checked elsewhere or derived) are ignored. Returns an
// explanation ("not an unsigned integer", ...) when the value is malformed.
std::optional<std::string> applyMetaRow(model::Meta& meta, std::string_view key,
                                        std::string_view value);

// ["./app","big file.txt"]: '"', '\' and control characters are escaped;
// other bytes (UTF-8 or not) are copied as they are.
std::string encodeCommand(const std::vector<std::string>& argv);
// Parses what encodeCommand writes (and any JSON array of strings);
// std::nullopt when malformed.
std::optional<std::vector<std::string>> decodeCommand(std::string_view json);

}  // namespace strobe::store
