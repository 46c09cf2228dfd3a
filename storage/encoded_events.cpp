#include "storage/encoded_events.hpp"

#include "storage/event_value_writer.hpp"

namespace capstan::storage {

void EncodedEvents::add(const Event& event) {
  write_event_value(event, bytes_);
  events_.push_back({bytes_.size(), event.time_s});
}

void EncodedEvents::add_value(double time_s, std::string_view value) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(value.data());
  bytes_.insert(bytes_.end(), bytes, bytes + value.size());
  events_.push_back({bytes_.size(), time_s});
}

std::string_view EncodedEvents::value(std::size_t i) const {
  const std::size_t begin = i == 0 ? 0 : events_[i - 1].end;
  return {reinterpret_cast<const char*>(bytes_.data()) + begin, events_[i].end - begin};
}

Result<std::vector<Event>> EncodedEvents::decode(std::uint64_t first_seq) const {
  std::vector<Event> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) {
    auto event = decode_event_value(first_seq + i, value(i));
    if (!event) return event.error();
    out.push_back(std::move(event).value());
  }
  return out;
}

EncodedEvents encode_events(const std::vector<Event>& events) {
  EncodedEvents out;
  for (const Event& e : events) out.add(e);
  return out;
}

}  // namespace capstan::storage
