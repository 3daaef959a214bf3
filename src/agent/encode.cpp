#include "agent/encode.hpp"

#include <cstdio>
#include <cstdlib>

#include "output/pprof_writer.hpp"

namespace strobe::agent {

model::Profile selectSamples(const model::Profile& p, uint64_t since_ns, uint64_t until_ns,
                             const Selection& selection) {
  model::Profile out = p;
  auto processOf = [&](int32_t tid) {
    const model::Thread* t = out.findThread(tid);
    return t != nullptr && t->pid != 0 ? t->pid : tid;
  };
  auto nameOf = [&](int32_t pid) -> const std::string* {
    const model::Thread* t = out.findThread(pid);
    return t != nullptr ? &t->name : nullptr;
  };
  std::erase_if(out.mutableSamples(), [&](const model::Sample& s) {
    if (s.time_ns < since_ns || s.time_ns >= until_ns) return true;
    if (selection.pid == 0 && selection.comm.empty()) return false;
    const int32_t pid = processOf(s.tid);
    if (selection.pid != 0 && pid != selection.pid) return true;
    if (!selection.comm.empty()) {
      const std::string* name = nameOf(pid);
      return name == nullptr || *name != selection.comm;
    }
    return false;
  });
  model::Meta& m = out.meta();
  m.start_realtime_ns += since_ns;
  m.start_monotonic_ns += since_ns;
  m.duration_ns = until_ns - since_ns;
  return out;
}

Result<std::string> encodePprof(const model::Profile& p, const Labels& labels) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* f = ::open_memstream(&data, &size);
  if (f == nullptr) return systemError("cannot encode a profile in memory", "");
  output::PprofOptions opt;
  opt.process_labels = true;
  opt.used_mappings_only = true;
  opt.labels = labels;
  Status st = output::writePprof(p, opt, f);
  std::fclose(f);
  std::string bytes(data != nullptr ? data : "", size);
  std::free(data);
  if (!st) return st.takeError();
  return bytes;
}

}  // namespace strobe::agent
