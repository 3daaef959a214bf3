#include "symbolize/incremental.hpp"

#include <algorithm>
#include <chrono>

namespace strobe::symbolize {
namespace {

// "Until done", in a form steady_clock's time_point can hold.
constexpr uint64_t kForeverNs = 24ULL * 3600 * 1'000'000'000;

}  // namespace

IncrementalSymbolizer::IncrementalSymbolizer(
    std::function<std::string(const std::string&, const std::string&)> kept_copy) {
  SymbolizerOptions sym;
  sym.kept_copy = std::move(kept_copy);
  symbolizer_ = std::make_unique<Symbolizer>(std::move(sym));
}

IncrementalSymbolizer::~IncrementalSymbolizer() {
  if (resolving_.valid()) resolving_.wait();  // the batch and symbolizer outlive it
}

void IncrementalSymbolizer::collect(model::Profile& p) {
  if (auto st = symbolizer_->finish(p, *batch_); !st) warnings_.insert(st.error().describe());
  for (const std::string& w : symbolizer_->warnings()) warnings_.insert(w);
  batch_.reset();
}

bool IncrementalSymbolizer::step(model::Profile& p, uint64_t wait_ns) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(std::min(wait_ns, kForeverNs));
  if (batch_) {
    if (resolving_.wait_until(deadline) != std::future_status::ready)
      return false;  // still reading
    resolving_.get();
    collect(p);
  }
  // Nothing new since the last batch: locations left unnamed then (no
  // symbol, no file) are tried again only with new ones.
  if (p.locations().size() == begun_) return true;
  begun_ = p.locations().size();
  batch_ = symbolizer_->begin(p);
  if (!Symbolizer::hasWork(*batch_)) {  // kernel, JIT and pseudo modules only
    symbolizer_->resolve(*batch_);
    collect(p);
    return true;
  }
  Symbolizer* s = symbolizer_.get();
  Symbolizer::Batch* b = batch_.get();
  resolving_ = std::async(std::launch::async, [s, b] { s->resolve(*b); });
  if (resolving_.wait_until(deadline) == std::future_status::ready) {
    resolving_.get();
    collect(p);
    return true;
  }
  return false;
}

}  // namespace strobe::symbolize
