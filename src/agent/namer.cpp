#include "agent/namer.hpp"

#include <malloc.h>

#include <cstdlib>
#include <string>

#include "base/log.hpp"

namespace strobe::agent {
namespace {

// Bytes malloc has handed out and not had back, in every arena.
size_t heapInUse() {
  const struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
}

}  // namespace

Namer::Namer() : debug_(std::getenv("STROBE_DEBUG") != nullptr) {
  symbolize::SymbolizerOptions opt;
  opt.kept_copy = [this](const std::string& path, const std::string& build_id) {
    auto it = kept_.find(path + '\0' + build_id);
    return it != kept_.end() ? it->second : std::string();
  };
  opt.threads = 1;  // the agent's naming is background work: one core at most
  symbolizer_ = std::make_unique<symbolize::Symbolizer>(std::move(opt));
  thread_ = std::thread([this] { run(); });
}

Namer::~Namer() {
  stop();
}

void Namer::add(NameJob job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void Namer::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::set<std::string> Namer::warnings() const {
  std::lock_guard lock(mu_);
  return warnings_;
}

void Namer::run() {
  for (;;) {
    NameJob job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, every job done
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    kept_ = std::move(job.kept);
    Status named = symbolizer_->symbolize(job.profile);
    {
      std::lock_guard lock(mu_);
      if (!named) warnings_.insert(named.error().describe());
      warnings_.insert(symbolizer_->warnings().begin(), symbolizer_->warnings().end());
    }
    job.done(encodePprof(job.profile, job.labels));
    job = NameJob{};  // closes its descriptors of kept files
    kept_.clear();    // ... which these paths named
    symbolizer_->forgetUnused(kModuleJobs, kMaxModules);
    size_t let_go = 0;
    while (heapInUse() > kHeapBudgetBytes && symbolizer_->forgetLeastRecentlyUsed()) ++let_go;
    if (debug_) {
      logInfo("debug: namer heap in use " + std::to_string(heapInUse() >> 20) + " MiB after " +
              std::to_string(let_go) + " modules let go over the budget");
    }
    // What the job and the modules let go held goes back to the system, and
    // the module files kept count in RSS only while they are read.
    symbolizer_->releaseFilePages();
    ::malloc_trim(0);
  }
}

}  // namespace strobe::agent
