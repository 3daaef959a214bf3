// `strobe report --spans`: one row per span name (model::spanTable) with its
// count, total, mean, p50, p90, p99 and max duration, the CPU sampled
// inside its spans and the function most sampled there; as text, JSON or
// CSV. Also the header lines that say what spans a report covers.
// Thread safety: pure over a const Profile; `out` is the caller's.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.hpp"
#include "model/profile.hpp"
#include "model/spans.hpp"

namespace strobe::output {

enum class SpanTableFormat { kText, kJson, kCsv };

Status writeSpanTable(const model::Profile& p, SpanTableFormat f, bool no_inline,
                      const std::string& source, std::FILE* out);

// "2000 recorded (3 names), 12 dropped: ..." for the text header; "" when
// the recording has no spans and dropped none.
std::string spansLine(const model::Profile& p);

// What a --span selection kept, for the text header: "the 20 slowest of
// 2000 'request' spans (61.2 ms to 70.3 ms), on 4 threads".
std::string spanSelectionLine(const model::Profile& p, const model::SpanSelection& s);

}  // namespace strobe::output
