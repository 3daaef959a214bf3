// Converter: the one place where raw perf records become the model. It
// follows each process's address space (MMAP2, exec COMM, FORK), names
// threads (COMM, FORK), and turns each SAMPLE's callchain into an interned
// stack of locations (module + file offset). Shared by `record` and `top`.
//
// Records must arrive in time order (see EventQueue). Caller frames are
// return addresses: the converter stores return address − 1 so that later
// lookups land in the call instruction (FIELD-NOTES: "Return addresses").
// Thread safety: none; one converter per draining thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/profile.hpp"
#include "perf/records.hpp"
#include "record/address_space.hpp"

namespace strobe::record {

struct ConverterStats {
  uint64_t samples = 0;
  uint64_t lost = 0;             // samples the kernel dropped (LOST records)
  uint64_t throttled = 0;        // THROTTLE records
  uint64_t unmapped_frames = 0;  // frames that fell in no known mapping
};

class Converter {
 public:
  // Sample times are stored relative to `start_ns` (CLOCK_MONOTONIC).
  Converter(model::Profile& profile, uint64_t start_ns);

  // Dispatches one decoded record to the handler below.
  void apply(const perf::Record& r);

  void onSample(const perf::SampleRecord& r);
  void onMmap(const perf::Mmap2Record& r);
  void onComm(const perf::CommRecord& r);
  void onTask(const perf::TaskRecord& r);
  void onLost(const perf::LostRecord& r) { stats_.lost += r.lost; }
  void onThrottle(const perf::ThrottleRecord& r) { stats_.throttled += r.throttle ? 1 : 0; }

  // Seeds a process's mappings and a thread's name (attach; tests).
  void addMapping(int32_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
                  const std::string& path, const std::string& build_id);
  void nameThread(int32_t pid, int32_t tid, const std::string& name);

  const ConverterStats& stats() const { return stats_; }

 private:
  model::LocationId locate(AddressSpace& as, uint64_t addr);

  model::Profile& profile_;
  uint64_t start_ns_;
  std::unordered_map<int32_t, AddressSpace> spaces_;  // by pid
  std::vector<uint64_t> frames_;                      // scratch: leaf first
  ConverterStats stats_;
};

}  // namespace strobe::record
