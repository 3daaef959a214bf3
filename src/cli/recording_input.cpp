#include "cli/recording_input.hpp"

#include <fmt/format.h>

#include "base/log.hpp"
#include "import/perf_import.hpp"
#include "perfdata/reader.hpp"
#include "store/store.hpp"

namespace strobe::cli {

bool isPerfDataInput(const std::string& path) {
  return path == "-" || perfdata::isPerfDataFile(path);
}

Result<model::Profile> readRecording(const std::string& path, const InputOptions& options) {
  if (!isPerfDataInput(path)) {
    auto p = store::readProfile(path);
    if (p && !options.event.empty() && p->meta().event != options.event) {
      return makeError(path + " is a strobe recording of " + p->meta().event + " only",
                       "drop --event (it chooses among a perf.data's events)", ErrorKind::kUsage);
    }
    return p;
  }
  model::Profile profile;
  import::ImportOptions io;
  io.event = options.event;
  io.keep_code = options.keep_code;
  io.keep_until_exit = true;  // every caller is a command that exits after it
  auto out = import::importPerfData(path, io, profile);
  if (!out) return out.takeError();
  for (const std::string& w : out->warnings) logWarning(w);
  if (out->cut_short) {
    logWarning(fmt::format(
        "{} is cut off or damaged: this holds the {} samples read before it "
        "broke (see above)",
        path == "-" ? std::string("the perf.data stream") : path, profile.samples().size()));
  }
  if (out->events.size() > 1 && options.event.empty()) {
    std::string others;
    for (const std::string& e : out->events) {
      if (e != out->event) others += (others.empty() ? "" : ", ") + e;
    }
    logInfo(fmt::format("{} holds several events: showing {}; --event {} for another", path,
                        out->event, others));
  }
  return profile;
}

}  // namespace strobe::cli
