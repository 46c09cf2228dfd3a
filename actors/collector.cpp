#include "actors/collector.hpp"

namespace capstan::actors {

collector_actor::behavior_type collector_behavior(collector_actor::pointer, std::shared_ptr<fleet::MetricsSource> source) {
  return {
      [source](observe_atom, const TickTime& time) -> caf::result<fleet::Observed> {
        auto observed = source->observe(time);
        if (!observed.ok()) return caf::make_error(caf::sec::runtime_error, "metrics source: " + observed.error().message);
        return std::move(observed).value();
      },
  };
}

}  // namespace capstan::actors
