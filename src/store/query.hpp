// Read-only SQL over a recording (`strobe query`) and the one-line summary
// of a recording (`strobe list`), without loading the whole Profile.
//
// Owns: nothing between calls; each call opens its own read-only SQLite
// connection (defensive mode, untrusted schema) and closes it. The database
// cannot be changed through these calls: writes fail with SQLite's
// "attempt to write a readonly database".
// Thread safety: reentrant. Errors: Status/Result with a one-line message
// naming the path (and SQLite's message for bad SQL) and a hint.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::store {

struct Cell {
  enum class Kind { kNull, kInteger, kReal, kText };
  Kind kind = Kind::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string text;  // also holds blobs, as bytes
};

struct QueryCallbacks {
  // Called once per statement that returns columns, before its rows.
  std::function<void(const std::vector<std::string>& columns)> columns;
  // Called per row; return false to stop.
  std::function<bool(const std::vector<Cell>& row)> row;
};

// Runs each statement of `sql` in turn on the recording at `path`.
Status runQuery(const std::string& path, std::string_view sql, const QueryCallbacks& cb);

struct RecordingSummary {
  std::vector<std::string> command;
  std::string target;  // as model::Meta::target: "command", "pid 12", "system"
  uint64_t start_realtime_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t samples = 0;
  bool incomplete = false;  // meta `incomplete`: a recorder killed or unable to finish
};

// The command, start, duration and sample count; errors as readProfile's
// (not a recording, newer schema, ...).
Result<RecordingSummary> readSummary(const std::string& path);

}  // namespace strobe::store
