#include "domain/tick_finisher.hpp"

#include <nlohmann/json.hpp>

#include "domain/gpu_budget.hpp"
#include "domain/metric_guard.hpp"
#include "domain/step_limit.hpp"

namespace capstan {
namespace {

std::vector<VariantState> states_of(const ModelTickInput& m) {
  std::vector<VariantState> out;
  out.reserve(m.variants.size());
  for (const VariantTickInput& v : m.variants) out.push_back(v.state);
  return out;
}

// Requests over the retention window, or nullopt until the window has been observed.
std::optional<double> requests_in_retention(std::deque<std::pair<double, double>>& history,
                                            double now_s, double interval_s, double arrivals,
                                            double retention_s) {
  history.emplace_back(now_s, arrivals);
  while (!history.empty() && history.front().first <= now_s - retention_s - interval_s) history.pop_front();
  if (history.front().first > now_s - retention_s + interval_s) return std::nullopt;
  double sum = 0;
  for (const auto& [t, n] : history) {
    if (t > now_s - retention_s) sum += n;
  }
  return sum;
}

Decision fallback_hold(const ModelKey& model, const VariantState& v, const std::string& why) {
  return to_decision(model, hold(v.spec.name, v.current_replicas, ReasonCode::kHold,
                                 "hold at " + std::to_string(v.current_replicas) + ": " + why));
}

}  // namespace

std::string model_id_key(const ModelKey& m) { return m.ns + "/" + m.model_id; }
std::string variant_id_key(const ModelKey& m, const std::string& v) { return model_id_key(m) + "/" + v; }

std::vector<Decision> finish_tick(const std::vector<ModelRequests>& models, const PolicyConfig& config,
                                  double now_s, double interval_s, FinisherState& state) {
  std::vector<ModelPlan> plans;
  std::vector<Decision> unbudgeted;
  for (const ModelRequests& mr : models) {
    const ModelTickInput& m = *mr.model;
    const std::vector<VariantState> variants = states_of(m);
    std::vector<ScalingRequest> requests = mr.requests;
    for (size_t i = 0; i < variants.size(); ++i) {
      const VariantState& v = variants[i];
      const std::string key = variant_id_key(m.model, v.spec.name);
      if (auto why = unusable_metrics(v)) {
        std::optional<int> last;
        if (auto it = state.last_good_target.find(key); it != state.last_good_target.end()) last = it->second;
        requests[i] = hold_last_good(v, last, *why);
        continue;
      }
      ScalingRequest& r = requests[i];
      const int limited = limit_step(r.current_replicas, r.target_replicas, config.max_step_up, config.max_step_down);
      if (limited != r.target_replicas) {
        r.reason.text += "; limited to " + std::to_string(limited) + " by the step limit";
        r.target_replicas = limited;
      }
    }

    ScaleToZeroPolicy stz;
    stz.enabled = config.scale_to_zero_retention_s > 0;
    if (stz.enabled) stz.retention_s = config.scale_to_zero_retention_s;
    const std::string mkey = model_id_key(m.model);
    std::optional<double> recent;
    if (stz.enabled) {
      recent = requests_in_retention(state.arrivals[mkey], now_s, interval_s,
                                     m.arrival_rate_rps * interval_s + m.upstream_queue, stz.retention_s);
    }
    // Scale from zero: requests waiting for a model with nothing running.
    if (auto wake = scale_from_zero(variants, m.upstream_queue)) {
      for (ScalingRequest& r : requests) {
        if (r.variant == wake->variant && r.target_replicas < wake->target_replicas) r = *wake;
      }
    }
    EnforcerConfig ec;
    ec.scale_down_cooldown_s = config.scale_down_cooldown_s;
    const EnforcerInput in{m.model, variants, requests, stz, recent};
    auto step = enforce(in, ec, state.enforcer[mkey], now_s);
    std::vector<Decision> decisions;
    if (step) {
      state.enforcer[mkey] = step->state;
      decisions = step->decisions;
    } else {
      for (const VariantState& v : variants) decisions.push_back(fallback_hold(m.model, v, step.error().message));
    }
    ModelPlan plan{m.model, static_cast<double>(std::max(1, m.priority)), {}};
    for (size_t i = 0; i < decisions.size(); ++i) {
      plan.requests.push_back({ScalingRequest{decisions[i].variant, decisions[i].current_replicas,
                                              decisions[i].target_replicas, decisions[i].reason},
                               std::max(1, variants[i].spec.gpus_per_replica)});
    }
    plans.push_back(std::move(plan));
    unbudgeted.insert(unbudgeted.end(), decisions.begin(), decisions.end());
  }

  std::vector<Decision> out = unbudgeted;
  if (config.gpu_budget > 0) {
    auto shared = share_gpu_budget(plans, config.gpu_budget);
    if (shared) out = *shared;
  }
  // Remember each usable variant's target as its last good one.
  size_t k = 0;
  for (const ModelRequests& mr : models) {
    for (const VariantTickInput& v : mr.model->variants) {
      const Decision& d = out[k++];
      if (d.reason.code != ReasonCode::kMetricsMissing) {
        state.last_good_target[variant_id_key(mr.model->model, v.state.spec.name)] = d.target_replicas;
      }
    }
  }
  return out;
}

void to_json(nlohmann::json& j, const FinisherState& s) {
  nlohmann::json arrivals = nlohmann::json::object();
  for (const auto& [k, d] : s.arrivals) arrivals[k] = std::vector<std::pair<double, double>>(d.begin(), d.end());
  j = {{"enforcer", s.enforcer}, {"last_good_target", s.last_good_target}, {"arrivals", arrivals}};
}

void from_json(const nlohmann::json& j, FinisherState& s) {
  j.at("enforcer").get_to(s.enforcer);
  j.at("last_good_target").get_to(s.last_good_target);
  s.arrivals.clear();
  for (const auto& [k, v] : j.at("arrivals").items()) {
    const auto pairs = v.get<std::vector<std::pair<double, double>>>();
    s.arrivals[k] = std::deque<std::pair<double, double>>(pairs.begin(), pairs.end());
  }
}

}  // namespace capstan
