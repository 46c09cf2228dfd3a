// A history recorded once per test run by the real daemon on the simulator: `capstan run`
// in virtual time over the shipped demo (ops/examples/capstan.yaml: the example fleet and
// a 15-minute excerpt of the Azure code trace, hybrid, a snapshot every 20 ticks), 30
// ticks. The replay tests read it; a test that alters it works on a copy.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include "adapters/run_binary.hpp"
#include "storage/event_store.hpp"

namespace capstan::testing {

inline std::string test_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("capstan_replay_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// The store's directory; `capstan run` exits 0 or the first caller throws.
inline const std::string& recorded_history() {
  struct Recorded {
    std::string dir = test_dir("history");
    Recorded() {
      const auto run = run_binary("run --clock virtual --config " + std::string(CAPSTAN_SOURCE_DIR) +
                                      "/ops/examples/capstan.yaml --data-dir " + dir,
                                  120);
      if (run.exit_status != 0) throw std::runtime_error("capstan run failed: " + run.stderr_text);
    }
    ~Recorded() { std::filesystem::remove_all(dir); }
  };
  static const Recorded recorded;
  return recorded.dir;
}

// A fresh store at `to` holding `from`'s events in order (so the same sequence numbers),
// each passed through `change` first; no snapshots.
inline void copy_store(const std::string& from, const std::string& to,
                       const std::function<void(storage::Event&)>& change) {
  auto source = storage::EventStore::open_read_only(from);
  if (!source.ok()) throw std::runtime_error(source.error().message);
  std::vector<storage::Event> events;
  auto read = source.value()->for_each({}, [&](const storage::Event& e) {
    events.push_back(e);
    change(events.back());
    return true;
  });
  if (!read.ok()) throw std::runtime_error(read.error().message);
  auto target = storage::EventStore::open(to, {});
  if (!target.ok()) throw std::runtime_error(target.error().message);
  auto appended = target.value()->append(std::move(events));
  if (!appended.ok()) throw std::runtime_error(appended.error().message);
}

}  // namespace capstan::testing
