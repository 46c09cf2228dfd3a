#include "domain/json.hpp"

namespace capstan {

void to_json(nlohmann::json& j, const ServiceParams& p) {
  j = {{"alpha", p.alpha_ms}, {"beta", p.beta_ms}, {"gamma", p.gamma_ms}};
}

void from_json(const nlohmann::json& j, ServiceParams& p) {
  j.at("alpha").get_to(p.alpha_ms);
  j.at("beta").get_to(p.beta_ms);
  j.at("gamma").get_to(p.gamma_ms);
}

void to_json(nlohmann::json& j, const TunerState& s) {
  j = {{"params", s.params},          {"covariance", s.covariance},
       {"min_params", s.min_params},  {"max_params", s.max_params},
       {"accepted_updates", s.accepted_updates}, {"rejected_updates", s.rejected_updates},
       {"consecutive_rejections", s.consecutive_rejections}};
}

void from_json(const nlohmann::json& j, TunerState& s) {
  j.at("params").get_to(s.params);
  j.at("covariance").get_to(s.covariance);
  j.at("min_params").get_to(s.min_params);
  j.at("max_params").get_to(s.max_params);
  s.accepted_updates = j.value("accepted_updates", 0L);
  s.rejected_updates = j.value("rejected_updates", 0L);
  s.consecutive_rejections = j.value("consecutive_rejections", 0);
}

void to_json(nlohmann::json& j, const VariantCapacity& c) {
  j = {{"variant", c.variant},
       {"status", to_string(c.status)},
       {"reason", c.reason},
       {"per_replica_capacity_rps", c.per_replica_capacity_rps},
       {"total_capacity_rps", c.total_capacity_rps},
       {"total_demand_rps", c.total_demand_rps},
       {"utilization", c.utilization},
       {"required_replicas", c.required_replicas},
       {"current_replicas", c.current_replicas},
       {"pending_replicas", c.pending_replicas},
       {"ready_replicas", c.ready_replicas},
       {"cost_per_replica", c.cost_per_replica}};
}

}  // namespace capstan
