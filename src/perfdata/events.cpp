#include "perfdata/events.hpp"

#include <algorithm>
#include <cstring>

#include "perf/event.hpp"
#include "perfdata/format.hpp"

namespace strobe::perfdata {
namespace {

// The record's type (the bytes may sit at any alignment in a file's stream).
uint32_t typeOf(const uint8_t* record) {
  uint32_t type = 0;
  std::memcpy(&type, record + offsetof(perf_event_header, type), sizeof type);
  return type;
}

int bit(uint64_t sample_type, uint64_t flag) {
  return (sample_type & flag) != 0 ? 1 : 0;
}

}  // namespace

bool EventList::add(const uint8_t* attr, size_t size, std::vector<uint64_t> ids, size_t& index) {
  if (size < PERF_ATTR_SIZE_VER0) return false;
  uint32_t attr_size = 0;
  std::memcpy(&attr_size, attr + offsetof(perf_event_attr, size), sizeof attr_size);
  if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
  Event e;
  std::memcpy(&e.attr, attr, std::min<size_t>({attr_size, size, sizeof e.attr}));
  e.attr.size = sizeof e.attr;
  index = events_.size();
  for (uint64_t id : ids) by_id_.emplace(id, static_cast<uint32_t>(index));
  e.ids = std::move(ids);
  events_.push_back(std::move(e));
  if (index == 0) positions();
  return true;
}

void EventList::nameById(uint64_t id, const std::string& name) {
  auto it = by_id_.find(id);
  if (it != by_id_.end()) events_[it->second].name = name;
}

void EventList::describe(size_t index, const std::vector<uint64_t>& ids, const std::string& name) {
  if (index >= events_.size()) return;
  Event& e = events_[index];
  if (!name.empty()) e.name = name;
  if (!e.ids.empty()) return;
  e.ids = ids;
  for (uint64_t id : ids) by_id_.emplace(id, static_cast<uint32_t>(index));
}

void EventList::positions() {
  // As perf finds them (evsel.c, __evsel__calc_id_pos / __evsel__calc_is_pos).
  const uint64_t t = events_.front().attr.sample_type;
  if (t & PERF_SAMPLE_IDENTIFIER) {
    id_pos_ = 0;
    is_pos_ = 1;
  } else if (t & PERF_SAMPLE_ID) {
    id_pos_ = bit(t, PERF_SAMPLE_IP) + bit(t, PERF_SAMPLE_TID) + bit(t, PERF_SAMPLE_TIME) +
              bit(t, PERF_SAMPLE_ADDR);
    is_pos_ = 1 + bit(t, PERF_SAMPLE_CPU) + bit(t, PERF_SAMPLE_STREAM_ID);
  }
}

uint32_t EventList::eventOf(const uint8_t* record, size_t size) const {
  if (events_.size() <= 1 || size < sizeof(perf_event_header)) return 0;
  size_t at = 0;
  if (typeOf(record) == PERF_RECORD_SAMPLE) {
    if (id_pos_ < 0) return 0;
    at = sizeof(perf_event_header) + 8 * static_cast<size_t>(id_pos_);
  } else {
    if (is_pos_ < 0 || events_.front().attr.sample_id_all == 0) return 0;
    const size_t back = 8 * static_cast<size_t>(is_pos_);
    if (size < sizeof(perf_event_header) + back) return 0;
    at = size - back;
  }
  if (at + 8 > size) return 0;
  auto it = by_id_.find(u64At(record + at));
  return it != by_id_.end() ? it->second : 0;
}

uint64_t EventList::timeOf(uint32_t event, const uint8_t* record, size_t size) const {
  if (event >= events_.size() || size < sizeof(perf_event_header)) return 0;
  const perf_event_attr& a = events_[event].attr;
  const uint64_t t = a.sample_type;
  if ((t & PERF_SAMPLE_TIME) == 0) return 0;
  size_t at = 0;
  if (typeOf(record) == PERF_RECORD_SAMPLE) {
    at = sizeof(perf_event_header) +
         8 * static_cast<size_t>(bit(t, PERF_SAMPLE_IDENTIFIER) + bit(t, PERF_SAMPLE_IP) +
                                 bit(t, PERF_SAMPLE_TID));
  } else {
    if (a.sample_id_all == 0) return 0;
    // The sample_id trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
    const size_t back =
        8 * static_cast<size_t>(1 + bit(t, PERF_SAMPLE_ID) + bit(t, PERF_SAMPLE_STREAM_ID) +
                                bit(t, PERF_SAMPLE_CPU) + bit(t, PERF_SAMPLE_IDENTIFIER));
    if (size < sizeof(perf_event_header) + back) return 0;
    at = size - back;
  }
  return at + 8 <= size ? u64At(record + at) : 0;
}

bool EventList::timed() const {
  if (events_.empty()) return false;
  return std::all_of(events_.begin(), events_.end(), [](const Event& e) {
    return (e.attr.sample_type & PERF_SAMPLE_TIME) != 0 && e.attr.sample_id_all != 0;
  });
}

std::string EventList::displayName(size_t index) const {
  if (index >= events_.size()) return {};
  const Event& e = events_[index];
  if (!e.name.empty()) return e.name;
  return perf::eventName(e.attr.type, e.attr.config);
}

bool EventList::isDummy(size_t index) const {
  if (index >= events_.size()) return false;
  const perf_event_attr& a = events_[index].attr;
  return a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_DUMMY;
}

}  // namespace strobe::perfdata
