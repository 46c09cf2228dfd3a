#include "replay/export.hpp"

#include <string>

#include <nlohmann/json.hpp>

namespace capstan::replay {

Result<std::uint64_t> export_events(const storage::EventStore& store, const storage::EventFilter& filter,
                                    std::ostream& out) {
  std::uint64_t written = 0;
  std::string line;
  const auto ran = store.for_each(filter, [&](const storage::Event& event) {
    // A pod name or an error text is recorded verbatim and may not be UTF-8: replace, not throw.
    line = storage::event_to_json(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    if (!out.write(line.data(), static_cast<std::streamsize>(line.size()))) return false;
    ++written;
    return true;
  });
  if (!ran) return ran.error();
  if (!*ran || !out.flush()) {
    return invalid_argument("writing the export failed after " + std::to_string(written) + " events");
  }
  return written;
}

}  // namespace capstan::replay
