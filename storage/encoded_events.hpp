// Events already encoded as the store keeps them (records.hpp's values, one after another
// in one buffer), with each event's time: what an append copies into its batch. Whoever
// makes the events may encode them, so that the work is spread where it is cheap: a
// model's actor encodes its observation and its tick's events in parallel with the other
// models', and the journal's append (storage/event_store.hpp) only copies bytes. At
// 10,000 variants the journal had encoded a tick's 42,500 events alone, on the tick's
// path, and the fleet had moved each of them twice.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "domain/core/result.hpp"
#include "storage/records.hpp"

namespace capstan::storage {

class EncodedEvents {
 public:
  EncodedEvents() = default;

  // Encodes `event` after the others (its seq is ignored: the append assigns them).
  void add(const Event& event);
  void add(double time_s, Payload payload) { add(Event{0, time_s, std::move(payload)}); }
  // A value encoded elsewhere (a message that carried these across a process boundary).
  void add_value(double time_s, std::string_view value);

  std::size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  std::size_t bytes() const { return bytes_.size(); }
  double time_s(std::size_t i) const { return events_[i].time_s; }
  std::string_view value(std::size_t i) const;

  // The events back, numbered from first_seq: as the store will read them.
  Result<std::vector<Event>> decode(std::uint64_t first_seq) const;

 private:
  struct Entry {
    std::size_t end = 0;  // of its value in bytes_
    double time_s = 0;
  };
  std::vector<std::uint8_t> bytes_;
  std::vector<Entry> events_;
};

// The events of `events`, encoded.
EncodedEvents encode_events(const std::vector<Event>& events);

}  // namespace capstan::storage
