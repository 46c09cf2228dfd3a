// The stages after a policy's own analysis, shared by the WVA-family and capstan's own
// policies (DESIGN.md "The tick, as data": optimizer -> enforcer -> decision): for every
// model,
//   1. variants whose metrics are unusable hold their last good target (metric_guard);
//   2. each change is limited to the configured step per tick (step_limit);
//   3. the WVA enforcer applies scale to/from zero, the pending guard, the scale-down
//      cooldown and the min/max bounds (enforcer.hpp);
// then, across models, the GPU budget is shared by priority (gpu_budget.hpp). What must
// be remembered between ticks is a FinisherState value.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/decision.hpp"
#include "domain/enforcer.hpp"
#include "domain/policy.hpp"

namespace capstan {

struct FinisherState {
  std::map<std::string, EnforcerState> enforcer;     // by "<ns>/<model_id>"
  std::map<std::string, int> last_good_target;       // by "<ns>/<model_id>/<variant>"
  // Requests that reached each model per past tick, newest last, over the retention.
  std::map<std::string, std::deque<std::pair<double, double>>> arrivals;

  bool operator==(const FinisherState&) const = default;
};

void to_json(nlohmann::json& j, const FinisherState& s);
void from_json(const nlohmann::json& j, FinisherState& s);

// One policy's wishes for one model: a request per variant, in the model's variant order.
struct ModelRequests {
  const ModelTickInput* model = nullptr;
  std::vector<ScalingRequest> requests;
};

// One decision per variant of every model, in input order.
std::vector<Decision> finish_tick(const std::vector<ModelRequests>& models, const PolicyConfig& config,
                                  double now_s, double interval_s, FinisherState& state);

std::string model_id_key(const ModelKey& model);
std::string variant_id_key(const ModelKey& model, const std::string& variant);

}  // namespace capstan
