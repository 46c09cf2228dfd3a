#include "domain/stages/tick_finisher.hpp"

#include <nlohmann/json.hpp>

#include "domain/stages/gpu_budget.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/stages/pd_ratio.hpp"
#include "domain/stages/step_limit.hpp"

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

// One model between the stages.
struct ModelWork {
  const ModelTickInput* model = nullptr;
  std::vector<VariantState> variants;
  std::vector<ScalingRequest> requests;
  std::vector<bool> band_raised;  // by variant: stage 3 raised it
  std::string band_sentence;
  std::vector<Decision> decisions;
};

// 1. Unusable data holds the last good target. A policy that judged its own data
// unusable and still asks for more than the hold (Dynamo's floor of one replica) knew
// what it was doing and keeps its request; one that read bad pod metrics unknowingly
// does not.
void guard_metrics(ModelWork& w, const ModelRequests& mr, bool pod_metrics, double interval_s,
                   const FinisherState& state) {
  for (size_t i = 0; i < w.variants.size(); ++i) {
    const VariantState& v = w.variants[i];
    const bool own = i < mr.unusable.size() && mr.unusable[i].has_value();
    std::optional<std::string> why = own ? mr.unusable[i] : std::nullopt;
    if (!why && pod_metrics) why = unusable_metrics(v, max_sample_age_s(interval_s));
    if (!why) continue;
    std::optional<int> last;
    if (auto it = state.last_good_target.find(variant_id_key(w.model->model, v.spec.name));
        it != state.last_good_target.end()) {
      last = it->second;
    }
    ScalingRequest held = hold_last_good(v, last, *why);
    if (!own || held.target_replicas >= w.requests[i].target_replicas) w.requests[i] = std::move(held);
  }
}

// 2. The step limit. A hold on missing metrics is not cut: going back to a target
// already decided is not a new step.
void limit_steps(ModelWork& w, const PolicyConfig& config) {
  for (ScalingRequest& r : w.requests) {
    if (r.reason.code == ReasonCode::kMetricsMissing) continue;
    const int limited = limit_step(r.current_replicas, r.target_replicas, config.max_step_up, config.max_step_down);
    if (limited != r.target_replicas) {
      r.reason.text += "; limited to " + std::to_string(limited) + " by the step limit";
      r.target_replicas = limited;
    }
  }
}

// Adds up to `replicas` to the role, one at a time on its cheapest variant with room;
// returns how many found none.
int raise_role(ModelWork& w, Role role, int replicas, int max_step_up) {
  const auto index = [&](const VariantState& s) { return static_cast<size_t>(&s - w.variants.data()); };
  const auto has_room = [&](const VariantState& s) {
    int room = s.spec.max_replicas;
    if (max_step_up > 0) room = std::min(room, s.current_replicas + max_step_up);
    return s.spec.role == role && w.requests[index(s)].target_replicas < room;
  };
  for (; replicas > 0; --replicas) {
    const VariantState* v = cheapest(w.variants, has_room);
    if (v == nullptr) break;
    ++w.requests[index(*v)].target_replicas;
    w.band_raised[index(*v)] = true;
  }
  return replicas;
}

// 3. The prefill:decode band on the roles' summed targets.
void keep_band(ModelWork& w, const PolicyConfig& config) {
  w.band_raised.assign(w.variants.size(), false);
  int prefill = 0, decode = 0;
  bool has_prefill = false, has_decode = false;
  for (size_t i = 0; i < w.variants.size(); ++i) {
    const Role role = w.variants[i].spec.role;
    if (role == Role::kPrefill) {
      prefill += w.requests[i].target_replicas;
      has_prefill = true;
    } else if (role == Role::kDecode) {
      decode += w.requests[i].target_replicas;
      has_decode = true;
    }
  }
  if (!has_prefill || !has_decode) return;
  const PdTargets t = keep_ratio_band(prefill, decode, config.pd_band);
  if (t.adjustment.empty()) return;
  const std::vector<ScalingRequest> before = w.requests;
  const int no_room = raise_role(w, Role::kPrefill, t.prefill - prefill, config.max_step_up) +
                      raise_role(w, Role::kDecode, t.decode - decode, config.max_step_up);
  w.band_sentence = t.adjustment;
  if (no_room > 0) {
    w.band_sentence += "; " + std::to_string(no_room) +
                       " replica(s) of that found no room below max replicas and the step limit";
  }
  for (size_t i = 0; i < w.variants.size(); ++i) {
    if (!w.band_raised[i]) continue;
    ScalingRequest& r = w.requests[i];
    r.reason = {ReasonCode::kPdBand,
                describe_change(r.current_replicas, r.target_replicas) + ": " + w.band_sentence +
                    " (before the band: " + before[i].reason.text + ")"};
  }
}

// 4. The WVA enforcer.
void enforce_model(ModelWork& w, const PolicyConfig& config, double now_s, double interval_s,
                   FinisherState& state) {
  const ModelTickInput& m = *w.model;
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
  if (auto wake = scale_from_zero(w.variants, m.upstream_queue)) {
    for (ScalingRequest& r : w.requests) {
      if (r.variant == wake->variant && r.target_replicas < wake->target_replicas) r = *wake;
    }
  }
  EnforcerConfig ec;
  ec.scale_down_cooldown_s = config.scale_down_cooldown_s;
  const EnforcerInput in{m.model, w.variants, w.requests, stz, recent};
  auto step = enforce(in, ec, state.enforcer[mkey], now_s);
  if (step) {
    state.enforcer[mkey] = step->state;
    w.decisions = step->decisions;
  } else {
    for (const VariantState& v : w.variants) w.decisions.push_back(fallback_hold(m.model, v, step.error().message));
  }
}

// 5. The GPU budget across models. A band raise is offered to the budget before the
// model's other scale-ups.
void share_budget(std::vector<ModelWork>& work, int gpu_budget) {
  std::vector<ModelPlan> plans;
  std::vector<std::vector<size_t>> order;  // by model: plan position -> variant index
  for (const ModelWork& w : work) {
    ModelPlan plan{w.model->model, static_cast<double>(std::max(1, w.model->priority)), {}};
    std::vector<size_t>& o = order.emplace_back();
    for (bool raised : {true, false}) {
      for (size_t i = 0; i < w.decisions.size(); ++i) {
        if (w.band_raised[i] != raised) continue;
        const Decision& d = w.decisions[i];
        plan.requests.push_back({ScalingRequest{d.variant, d.current_replicas, d.target_replicas, d.reason},
                                 std::max(1, w.variants[i].spec.gpus_per_replica)});
        o.push_back(i);
      }
    }
    plans.push_back(std::move(plan));
  }
  auto shared = share_gpu_budget(plans, gpu_budget);
  if (!shared) return;  // only on a negative budget, which never gets here
  size_t k = 0;
  for (size_t p = 0; p < work.size(); ++p) {
    ModelWork& w = work[p];
    for (size_t i : order[p]) {
      Decision& d = w.decisions[i];
      d = (*shared)[k++];
      if (w.band_raised[i] && d.reason.code == ReasonCode::kBudgetLimited &&
          d.reason.text.find(w.band_sentence) == std::string::npos) {
        d.reason.text += "; the P:D band asked for it: " + w.band_sentence;
      }
    }
  }
}

}  // namespace

std::vector<ModelRequests> per_variant_requests(
    const TickInput& input, const std::function<VariantWish(const ModelTickInput&, const VariantTickInput&)>& wish) {
  std::vector<ModelRequests> out;
  for (const ModelTickInput& m : input.models) {
    ModelRequests& mr = out.emplace_back(ModelRequests{&m, {}, {}});
    for (const VariantTickInput& v : m.variants) {
      VariantWish w = wish(m, v);
      mr.requests.push_back(std::move(w.request));
      mr.unusable.push_back(std::move(w.unusable));
    }
  }
  return out;
}

std::string model_id_key(const ModelKey& m) { return m.ns + "/" + m.model_id; }
std::string variant_id_key(const ModelKey& m, const std::string& v) { return model_id_key(m) + "/" + v; }

std::vector<Decision> finish_tick(const std::vector<ModelRequests>& models, const PolicyConfig& config,
                                  double now_s, double interval_s, FinisherState& state,
                                  const FinishOptions& options) {
  std::vector<ModelWork> work;
  work.reserve(models.size());
  for (const ModelRequests& mr : models) {
    ModelWork& w = work.emplace_back();
    w.model = mr.model;
    w.variants = states_of(*mr.model);
    w.requests = mr.requests;
    guard_metrics(w, mr, options.guard_pod_metrics, interval_s, state);
    limit_steps(w, config);
    keep_band(w, config);
    if (options.enforcer) {
      enforce_model(w, config, now_s, interval_s, state);
    } else {
      for (const ScalingRequest& r : w.requests) w.decisions.push_back(to_decision(mr.model->model, r));
    }
  }
  if (config.gpu_budget > 0) share_budget(work, config.gpu_budget);

  // Remember each usable variant's target as its last good one.
  std::vector<Decision> out;
  for (const ModelWork& w : work) {
    for (size_t i = 0; i < w.variants.size(); ++i) {
      const Decision& d = w.decisions[i];
      if (d.reason.code != ReasonCode::kMetricsMissing) {
        state.last_good_target[variant_id_key(w.model->model, w.variants[i].spec.name)] = d.target_replicas;
      }
      out.push_back(d);
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
