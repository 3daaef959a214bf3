// The HTML viewer: one self-contained page (viewer/ embedded at build time,
// nothing fetched, a Content-Security-Policy that forbids fetching) with the
// profile inside as compact JSON. The page shows the recording's header, a
// timeline per thread and, for a selection of threads and a time range, the
// views of viewer/README.md (flame graph, icicle, call trees, sandwich, top
// functions, stack chart) with search, keys and a URL that keeps the state.
//
// The embedded data (docs/FORMATS.md, "html"): interned strings; frames
// (with the function identity the table counts by) and stack-trie nodes
// (parent, frame) as base64 variable-length numbers; per
// thread, its samples in time order as (time delta in µs, node delta, weight
// delta), its off-CPU intervals (record --off-cpu) the same way apart; the
// meta says what weights measure (model/measure.hpp). Every string is JSON-escaped, with <, >, &
// and U+2028/U+2029 as \uXXXX so that no name can end the script element; the page inserts names as
// text only. Invalid UTF-8 becomes U+FFFD.
//
// Thread safety: pure over a const Profile; `out` is the caller's. A failed
// write returns "cannot write the report" with errno.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "model/profile.hpp"

namespace strobe::output {

struct HtmlOptions {
  bool no_inline = false;
  std::string source;  // how to name the recording when it has no command
  // The lines of a source file (nullptr: unreadable), for the source text
  // of the hottest functions; unset: none is embedded.
  std::function<const std::vector<std::string>*(const std::string& file)> source_lines;
};

Status writeHtml(const model::Profile& p, const HtmlOptions& opt, std::FILE* out);

}  // namespace strobe::output
