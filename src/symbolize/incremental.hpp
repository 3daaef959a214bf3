// IncrementalSymbolizer: names the locations a growing Profile gains, for
// views that run while recording (`strobe top`, `strobe agent`). One
// Symbolizer is kept for the whole session, so modules are opened once;
// debug information is read on a thread of its own (Symbolizer::resolve)
// while the caller's thread, the recording session's, goes back to
// draining the rings: step() waits for the batch at most `wait_ns` and
// leaves the rest for the next step (what is not named yet shows as
// module+0xOFFSET meanwhile); step(p, kForever) waits for every name.
// A step finds nothing to do, cheaply, when the Profile has no location
// that is new since the last batch began (locations are never removed).
// Owns: the Symbolizer and its resolving thread (joined on destruction).
// Thread safety: one thread calls everything.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string>

#include "model/profile.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {

class IncrementalSymbolizer {
 public:
  static constexpr uint64_t kForever = UINT64_MAX;

  // kept_copy: as SymbolizerOptions::kept_copy (the recorder's kept files).
  explicit IncrementalSymbolizer(
      std::function<std::string(const std::string&, const std::string&)> kept_copy);
  ~IncrementalSymbolizer();
  IncrementalSymbolizer(const IncrementalSymbolizer&) = delete;
  IncrementalSymbolizer& operator=(const IncrementalSymbolizer&) = delete;

  // Interns a batch that finished, starts one for the locations that are
  // new, and waits for it up to wait_ns. Returns whether nothing is left
  // being resolved.
  bool step(model::Profile& p, uint64_t wait_ns);

  // The symbolizer's warnings so far, each once.
  const std::set<std::string>& warnings() const { return warnings_; }

 private:
  void collect(model::Profile& p);

  std::unique_ptr<Symbolizer> symbolizer_;
  Symbolizer::BatchPtr batch_;  // being resolved by resolving_
  std::future<void> resolving_;
  size_t begun_ = 0;  // locations the profile had when the last batch began
  std::set<std::string> warnings_;
};

}  // namespace strobe::symbolize
