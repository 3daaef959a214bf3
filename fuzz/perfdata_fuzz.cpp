// perf.data files: the bytes as a file (or, with the pipe header, a pipe's
// stream) read by perfdata::Reader and converted into a Profile the way
// `strobe import` does (import::importPerfData), without symbolizing: the
// header, the events, the feature sections, compressed records, the order
// of rounds and every kernel record's decoding. perf.data files come from
// other machines and other people.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "import/perf_import.hpp"
#include "model/profile.hpp"
#include "perfdata/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strobe;
  Fd fd(::memfd_create("perfdata-fuzz", MFD_CLOEXEC));
  if (!fd.valid()) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd.get(), data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  auto reader = perfdata::Reader::open(std::move(fd), "input");
  if (!reader) return 0;
  import::ImportOptions options;
  options.symbolize = false;
  options.build_id_dir = "/nonexistent";
  model::Profile profile;
  auto out = import::importPerfData(**reader, options, profile);
  if (!out) return 0;
  // Every sample's stack is one the Profile holds.
  for (const model::Sample& s : profile.samples()) {
    if (s.stack != model::kNone && s.stack >= profile.stacks().size()) std::abort();
  }
  return 0;
}
