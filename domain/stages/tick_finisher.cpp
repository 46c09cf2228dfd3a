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
std::optional<double> requests_in_retention(History<std::pair<double, double>>& history,
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

Decision fallback_hold(const ModelKey& model, const VariantState& v, const std::string& error) {
  return to_decision(model, hold(v.spec.name, v.current_replicas,
                                 make_reason(ReasonCode::kHold, "finisher.failed",
                                             {{"current", v.current_replicas}, {"error", error}})));
}

// One model between the stages.
struct ModelWork {
  const ModelTickInput* model = nullptr;
  std::vector<VariantState> variants;
  std::vector<ScalingRequest> requests;
  std::vector<bool> band_raised;  // by variant: stage 3 raised it
  std::optional<Reason> band;  // what the band asked, when it raised one
  std::vector<Decision> decisions;
};

// 1. Unusable data holds the last good target. A policy that judged its own data
// unusable and still asks for more than the hold (Dynamo's floor of one replica) knew
// what it was doing and keeps its request; one that read bad pod metrics unknowingly
// does not.
void guard_metrics(ModelWork& w, const ModelRequests& mr, bool pod_metrics, double interval_s,
                   const ModelFinisherState& state) {
  for (size_t i = 0; i < w.variants.size(); ++i) {
    const VariantState& v = w.variants[i];
    const bool own = i < mr.unusable.size() && mr.unusable[i].has_value();
    std::optional<Reason> why = own ? mr.unusable[i] : std::nullopt;
    if (!why && pod_metrics) why = unusable_metrics(v, max_sample_age_s(interval_s));
    if (!why) continue;
    std::optional<int> last;
    if (auto it = state.last_good_target.find(v.spec.name);
        it != state.last_good_target.end()) {
      last = it->second;
    }
    ScalingRequest held = hold_last_good(v, last, std::move(*why));
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
      r.reason = make_reason(r.reason.code, "step.limited", {{"target", limited}}, {std::move(r.reason)});
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
  if (t.prefill == prefill && t.decode == decode) return;
  const std::vector<ScalingRequest> before = w.requests;
  const int no_room = raise_role(w, Role::kPrefill, t.prefill - prefill, config.max_step_up) +
                      raise_role(w, Role::kDecode, t.decode - decode, config.max_step_up);
  w.band = band_adjustment(prefill, decode, t, config.pd_band, no_room);
  for (size_t i = 0; i < w.variants.size(); ++i) {
    if (!w.band_raised[i]) continue;
    ScalingRequest& r = w.requests[i];
    r.reason = make_reason(ReasonCode::kPdBand, "band.raised", {{"current", r.current_replicas}, {"target", r.target_replicas}},
                           {*w.band, before[i].reason});
  }
}

// 4. The WVA enforcer.
void enforce_model(ModelWork& w, const PolicyConfig& config, double now_s, double interval_s,
                   ModelFinisherState& state) {
  const ModelTickInput& m = *w.model;
  ScaleToZeroPolicy stz;
  stz.enabled = config.scale_to_zero_retention_s > 0;
  if (stz.enabled) stz.retention_s = config.scale_to_zero_retention_s;
  std::optional<double> recent;
  if (stz.enabled) {
    recent = requests_in_retention(state.arrivals, now_s, interval_s,
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
  auto step = enforce(in, ec, state.enforcer, now_s);
  if (step) {
    // Through value(): a Result's -> is const, so std::move(step->...) copied both.
    EnforcerStep& made = step.value();
    state.enforcer = std::move(made.state);
    w.decisions = std::move(made.decisions);
  } else {
    for (const VariantState& v : w.variants) w.decisions.push_back(fallback_hold(m.model, v, step.error().message));
  }
}

// Targets as they stand, to tell which stage changed which: refilled before each stage,
// not made anew (four vectors a model a tick).
void targets_of(const std::vector<ScalingRequest>& requests, std::vector<int>& out) {
  out.clear();
  for (const ScalingRequest& r : requests) out.push_back(r.target_replicas);
}

void note_changes(const ModelKey& model, Stage stage, const std::vector<int>& before,
                  const std::vector<ScalingRequest>& after, std::vector<TickEvent>& events) {
  for (size_t i = 0; i < after.size(); ++i) {
    if (before[i] == after[i].target_replicas) continue;
    events.push_back(StageApplied{model, after[i].variant, stage, before[i], after[i].target_replicas, after[i].reason.code});
  }
}

}  // namespace

ModelProposal finish_model(const ModelRequests& mr, const PolicyConfig& config, const TickTime& time,
                           ModelFinisherState& state, std::vector<TickEvent>& events, const FinishOptions& options) {
  ModelWork w;
  w.model = mr.model;
  w.variants = states_of(*mr.model);
  w.requests = mr.requests;
  const ModelKey& key = mr.model->model;
  std::vector<int> before;
  targets_of(w.requests, before);
  guard_metrics(w, mr, options.guard_pod_metrics, time.interval_s, state);
  note_changes(key, Stage::kMetricGuard, before, w.requests, events);
  targets_of(w.requests, before);
  limit_steps(w, config);
  note_changes(key, Stage::kStepLimit, before, w.requests, events);
  targets_of(w.requests, before);
  keep_band(w, config);
  note_changes(key, Stage::kPdBand, before, w.requests, events);
  if (options.enforcer) {
    targets_of(w.requests, before);
    enforce_model(w, config, time.now_s, time.interval_s, state);
    for (size_t i = 0; i < w.decisions.size(); ++i) {
      const Decision& d = w.decisions[i];
      if (d.target_replicas != before[i]) {
        events.push_back(StageApplied{key, d.variant, Stage::kEnforcer, before[i], d.target_replicas, d.reason.code});
      }
    }
  } else {
    for (const ScalingRequest& r : w.requests) w.decisions.push_back(to_decision(key, r));
  }
  ModelProposal out;
  out.model = key;
  out.priority = mr.model->priority;
  out.decisions = std::move(w.decisions);
  for (const VariantState& v : w.variants) {
    out.gpus_per_replica.push_back(v.spec.gpus_per_replica);
    out.min_replicas.push_back(v.spec.min_replicas);
  }
  out.band_raised = std::move(w.band_raised);
  out.band_raised.resize(out.decisions.size(), false);
  out.band = std::move(w.band);
  return out;
}

// A band raise is offered to the budget before the model's other scale-ups.
std::vector<Decision> share_budget(const std::vector<ModelProposal>& proposals, const PolicyConfig& config,
                                   std::vector<TickEvent>& events) {
  std::vector<Decision> out;
  for (const ModelProposal& p : proposals) out.insert(out.end(), p.decisions.begin(), p.decisions.end());
  if (!(config.gpu_budget > 0)) return out;
  std::vector<ModelPlan> plans;
  std::vector<std::vector<size_t>> order;  // by model: plan position -> variant index
  for (const ModelProposal& p : proposals) {
    ModelPlan plan{p.model, static_cast<double>(std::max(1, p.priority)), {}};
    std::vector<size_t>& o = order.emplace_back();
    for (bool raised : {true, false}) {
      for (size_t i = 0; i < p.decisions.size(); ++i) {
        if (p.band_raised[i] != raised) continue;
        const Decision& d = p.decisions[i];
        plan.requests.push_back({ScalingRequest{d.variant, d.current_replicas, d.target_replicas, d.reason},
                                 std::max(1, p.gpus_per_replica[i]),
                                 i < p.min_replicas.size() ? p.min_replicas[i] : 0});
        o.push_back(i);
      }
    }
    plans.push_back(std::move(plan));
  }
  auto shared = share_gpu_budget(plans, config.gpu_budget);
  if (!shared) return out;  // only on a negative budget, which never gets here
  size_t k = 0, first = 0;
  for (size_t m = 0; m < proposals.size(); ++m) {
    const ModelProposal& p = proposals[m];
    for (size_t i : order[m]) {
      Decision& d = out[first + i];
      const int before = d.target_replicas;
      d = (*shared)[k++];
      if (p.band_raised[i] && p.band && d.reason.code == ReasonCode::kBudgetLimited &&
          d.reason.text().find(p.band->text()) == std::string::npos) {
        d.reason = make_reason(ReasonCode::kBudgetLimited, "budget.band", {}, {std::move(d.reason), *p.band});
      }
      if (d.target_replicas != before) {
        events.push_back(StageApplied{p.model, d.variant, Stage::kBudget, before, d.target_replicas, d.reason.code});
      }
    }
    first += p.decisions.size();
  }
  return out;
}

void remember_targets(ModelFinisherState& state, const std::vector<Decision>& decisions) {
  for (const Decision& d : decisions) {
    if (d.reason.code != ReasonCode::kMetricsMissing) state.last_good_target[d.variant] = d.target_replicas;
  }
}

void to_json(nlohmann::json& j, const ModelFinisherState& s) {
  j = {{"enforcer", s.enforcer},
       {"last_good_target", s.last_good_target},
       {"arrivals", std::vector<std::pair<double, double>>(s.arrivals.begin(), s.arrivals.end())}};
}

void from_json(const nlohmann::json& j, ModelFinisherState& s) {
  j.at("enforcer").get_to(s.enforcer);
  j.at("last_good_target").get_to(s.last_good_target);
  const auto pairs = j.at("arrivals").get<std::vector<std::pair<double, double>>>();
  s.arrivals = History<std::pair<double, double>>(pairs.begin(), pairs.end());
}

}  // namespace capstan
