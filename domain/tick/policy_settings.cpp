// PolicySettings -> PolicyConfig; see policy_settings.hpp.
#include "domain/tick/policy_settings.hpp"

namespace capstan {

PolicyConfig policy_config(const PolicySettings& s) {
  PolicyConfig c;
  c.slo = s.slo;
  c.tail_probability = 1 - s.slo_attainment;  // the share of requests the SLO may miss
  c.slo_multiplier = s.slo_multiplier;
  c.client_timeout_s = s.client_timeout_s;
  c.scale_down_cooldown_s = s.scale_down_cooldown_s;
  c.scale_to_zero_retention_s = s.scale_to_zero_retention_s;
  c.gpu_budget = s.gpu_budget;
  c.pd_band = s.pd_band;
  c.max_step_up = s.max_step_up;
  c.max_step_down = s.max_step_down;
  c.predictor = s.predictor;
  c.target_concurrency_per_replica = s.hpa_target_per_replica;
  return c;
}

}  // namespace capstan
