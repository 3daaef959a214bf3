// EventList: the events of a perf.data file (one perf_event_attr each, with
// the ids the kernel gave its instances, one per CPU or thread) and their
// names, and which event a record came from and when.
//
// A record names its event by id: PERF_SAMPLE_IDENTIFIER puts the id at a
// fixed place (a sample's first u64, the last of another record's
// sample_id trailer); PERF_SAMPLE_ID at a place that depends on the
// sample_type, which perf keeps alike across a file's events. A file with
// one event needs no id. The time is where the record's own event's
// sample_type puts it; 0 when it has none (no PERF_SAMPLE_TIME, or no
// sample_id_all for records other than samples).
// Owns: the attrs and names. Thread safety: none (a value type).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace strobe::perfdata {

struct Event {
  perf_event_attr attr{};  // zero past the bytes the file gave (attr.size)
  std::vector<uint64_t> ids;
  std::string name;  // perf's name ("cycles:u"), "" when the file gives none
};

class EventList {
 public:
  // Adds an event from the `size` bytes of a perf_event_attr as written
  // (attr.size, or 64 when 0, says how many are the attr; more than strobe
  // knows are ignored). Returns its index; false when the bytes are too few.
  bool add(const uint8_t* attr, size_t size, std::vector<uint64_t> ids, size_t& index);
  // Names the event that has instance `id` (EVENT_DESC, EVENT_UPDATE).
  void nameById(uint64_t id, const std::string& name);
  // The events' names and ids from HEADER_EVENT_DESC, which lists them in
  // the attrs' order: fills in ids that the attrs section lacked.
  void describe(size_t index, const std::vector<uint64_t>& ids, const std::string& name);

  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  [[nodiscard]] size_t size() const { return events_.size(); }
  [[nodiscard]] bool empty() const { return events_.empty(); }

  // The event a kernel record (type < 64) came from: 0 when the file has one
  // event or the record names none that is known.
  [[nodiscard]] uint32_t eventOf(const uint8_t* record, size_t size) const;
  // The record's time by its event's sample_type (0 when it has none).
  [[nodiscard]] uint64_t timeOf(uint32_t event, const uint8_t* record, size_t size) const;
  // Whether every event times its records (samples and side-band), so
  // that they can be put in time order.
  [[nodiscard]] bool timed() const;

  // The name perf would show for event `index` (its own name, else one from
  // its type and config: "cycles", or "TYPE:CONFIG" for one strobe does not know).
  [[nodiscard]] std::string displayName(size_t index) const;
  // Whether an event only carries side-band records (perf's "dummy" event).
  [[nodiscard]] bool isDummy(size_t index) const;

 private:
  void positions();  // id_pos_ and is_pos_ from the first event

  std::vector<Event> events_;
  std::unordered_map<uint64_t, uint32_t> by_id_;
  int id_pos_ = -1;  // u64 index of the id in a sample's body; -1: none
  int is_pos_ = -1;  // u64s from the end of another record to its id; -1: none
};

}  // namespace strobe::perfdata
