#include "actors/collector.hpp"

namespace capstan::actors {

collector_actor::behavior_type collector_behavior(collector_actor::pointer, std::shared_ptr<fleet::MetricsSource> source,
                                                  std::shared_ptr<const TickPolicy> policy) {
  // A policy is immutable and shared with the model actors, so asking it from this
  // thread is safe.
  ReadsForwardPasses reads_forward_passes = [policy](const ModelTickInput& model) {
    return policy->reads_forward_passes(model);
  };
  return {
      [source, reads_forward_passes](observe_atom, const TickTime& time) -> caf::result<fleet::Observed> {
        auto observed = source->observe(time, reads_forward_passes);
        if (!observed.ok()) return caf::make_error(caf::sec::runtime_error, "metrics source: " + observed.error().message);
        return std::move(observed).value();
      },
  };
}

}  // namespace capstan::actors
