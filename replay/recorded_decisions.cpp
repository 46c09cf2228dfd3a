#include "replay/recorded_decisions.hpp"

#include <map>
#include <set>

namespace capstan::replay {

namespace {

// One tick's events, gathered until the next tick begins.
struct TickEvents {
  std::uint64_t tick = 0;
  double interval_s = 0;
  std::map<ModelKey, ModelTickInput> observations;
  std::map<VariantKey, ParamsLearned> params;
  std::map<VariantKey, ColdStartLearned> cold_starts;
  std::map<ModelKey, ForecastMade> forecasts;
  std::map<VariantKey, CapacitySized> capacities;
  std::map<VariantKey, std::vector<StageApplied>> stages;
  struct Made {
    std::uint64_t seq = 0;
    double time_s = 0;
    Decision decision;
  };
  std::vector<Made> decisions;
};

template <class T>
std::optional<T> find(const std::map<VariantKey, T>& in, const VariantKey& key) {
  const auto it = in.find(key);
  return it == in.end() ? std::nullopt : std::optional<T>(it->second);
}

}  // namespace

const VariantTickInput* DecisionRecord::observed_variant() const {
  if (!observation) return nullptr;
  for (const VariantTickInput& v : observation->variants)
    if (v.state.spec.name == decision.variant) return &v;
  return nullptr;
}

Result<bool> for_each_decision(const storage::EventStore& store, const DecisionFilter& filter,
                               const std::function<bool(DecisionRecord&)>& visit) {
  storage::EventFilter scan;
  scan.from_seq = filter.range.from_seq;
  scan.to_seq = filter.range.to_seq;
  scan.from_time_s = filter.range.from_time_s;
  scan.to_time_s = filter.range.to_time_s;
  std::optional<TickEvents> tick;
  bool more = true;
  auto flush = [&] {
    if (!tick) return;
    for (const TickEvents::Made& made : tick->decisions) {
      const Decision& d = made.decision;
      if (!more) break;
      if (filter.model && d.model != *filter.model) continue;
      if (filter.variant && d.variant != *filter.variant) continue;
      const VariantKey key{d.model, d.variant};
      DecisionRecord r;
      r.seq = made.seq;
      r.tick = tick->tick;
      r.time_s = made.time_s;
      r.interval_s = tick->interval_s;
      r.decision = d;
      r.params = find(tick->params, key);
      r.cold_start = find(tick->cold_starts, key);
      r.capacity = find(tick->capacities, key);
      if (const auto f = tick->forecasts.find(d.model); f != tick->forecasts.end()) r.forecast = f->second;
      if (const auto s = tick->stages.find(key); s != tick->stages.end()) r.stages = s->second;
      if (const auto o = tick->observations.find(d.model); o != tick->observations.end()) r.observation = o->second;
      more = visit(r);
    }
    tick.reset();
  };
  auto ran = store.for_each(scan, [&](const storage::Event& e) {
    if (const auto* started = std::get_if<storage::TickStarted>(&e.payload)) {
      flush();
      tick.emplace();
      tick->tick = started->tick;
      tick->interval_s = started->interval_s;
    } else if (!tick) {
      // A range that starts inside a tick: its first events belong to a tick not read.
    } else if (const auto* o = std::get_if<storage::ObservationRecorded>(&e.payload)) {
      if (filter.with_observation && (!filter.model || o->input->model == *filter.model))
        tick->observations[o->input->model] = *o->input;
    } else if (const auto* t = std::get_if<TickEvent>(&e.payload)) {
      std::visit(
          [&](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, ParamsLearned>) tick->params[x.variant] = x;
            if constexpr (std::is_same_v<X, ColdStartLearned>) tick->cold_starts[x.variant] = x;
            if constexpr (std::is_same_v<X, ForecastMade>) tick->forecasts[x.model] = x;
            if constexpr (std::is_same_v<X, CapacitySized>) tick->capacities[{x.model, x.variant}] = x;
            if constexpr (std::is_same_v<X, StageApplied>) tick->stages[{x.model, x.variant}].push_back(x);
            if constexpr (std::is_same_v<X, DecisionMade>) tick->decisions.push_back({e.seq, e.time_s, x.decision});
          },
          *t);
    }
    return more;
  });
  if (!ran.ok()) return ran.error();
  flush();
  return more;
}

Result<std::vector<ModelKey>> recorded_models(const storage::EventStore& store) {
  std::set<ModelKey> models;
  storage::EventFilter filter;
  filter.type = "decision";
  auto ran = store.for_each(filter, [&](const storage::Event& e) {
    models.insert(std::get<DecisionMade>(std::get<TickEvent>(e.payload)).decision.model);
    return true;
  });
  if (!ran.ok()) return ran.error();
  return std::vector<ModelKey>(models.begin(), models.end());
}

}  // namespace capstan::replay
