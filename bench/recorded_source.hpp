// A daemon's outside world for the benches that run it (daemon_bench, replay_bench): a
// metrics source replaying ticks the simulator recorded (recorded_fleet.hpp), widened
// to the bench's fleet, in a loop, and a connector that accepts every target.
#pragma once

#include <vector>

#include "adapters/fleet/connector.hpp"
#include "adapters/fleet/metrics_source.hpp"
#include "recorded_fleet.hpp"

namespace capstan::bench {

class RecordedSource : public fleet::MetricsSource {
 public:
  RecordedSource(const std::vector<TickInput>& recorded, int models, int variants)
      : recorded_(recorded), models_(models), variants_(variants) {}
  Result<fleet::Observed> observe(const TickTime& time, const ReadsForwardPasses& reads_forward_passes) override {
    fleet::Observed out;
    out.input = widened(recorded_[tick_++ % recorded_.size()], models_, variants_, reads_forward_passes);
    out.input.now_s = time.now_s;
    out.input.interval_s = time.interval_s;
    return out;
  }

 private:
  const std::vector<TickInput>& recorded_;
  int models_, variants_;
  std::size_t tick_ = 0;
};

class AcceptingConnector : public fleet::Connector {
 public:
  std::string name() const override { return "accept"; }
  Result<int> scale(const VariantKey&, int replicas) override { return replicas; }
};

}  // namespace capstan::bench
