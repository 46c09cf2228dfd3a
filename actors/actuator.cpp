#include "actors/actuator.hpp"

#include <chrono>
#include <thread>

namespace capstan::actors {

actuator_actor::behavior_type actuator_behavior(actuator_actor::stateful_pointer<ActuatorState> self,
                                                std::shared_ptr<fleet::Connector> connector, ActuatorOptions options) {
  self->state.connector = std::move(connector);
  self->state.options = options;
  return {
      [self](actuate_atom, const ActuationRequest& request) -> ActuationReport {
        auto& s = self->state;
        ActuationReport report;
        for (const Decision& d : request.decisions) {
          const VariantKey key{d.model, d.variant};
          const auto last = s.applied.find(key);
          const bool change = last == s.applied.end() || last->second != d.target_replicas;
          if (change) report.results.push_back({key, "requested", d.target_replicas, 0, "", 0});
          double backoff_s = s.options.backoff_s;
          for (int attempt = 1;; ++attempt) {
            auto scaled = s.connector->scale(key, d.target_replicas);
            if (scaled.ok()) {
              s.applied[key] = d.target_replicas;
              if (change) report.results.push_back({key, "applied", d.target_replicas, scaled.value(), "", attempt});
              break;
            }
            if (attempt > s.options.retries) {
              report.results.push_back({key, "failed", d.target_replicas, 0, scaled.error().message, attempt});
              break;
            }
            // Detached: this thread is the actuator's own, so waiting blocks nothing else.
            std::this_thread::sleep_for(std::chrono::duration<double>(backoff_s));
            backoff_s *= 2;
          }
        }
        return report;
      },
  };
}

}  // namespace capstan::actors
