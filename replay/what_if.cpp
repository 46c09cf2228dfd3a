#include "replay/what_if.hpp"

#include <map>

#include "domain/policies/policy.hpp"
#include "replay/parallel_for.hpp"

namespace capstan::replay {

namespace {

// The last sizing of each variant among `events`.
void last_sizings(const std::vector<TickEvent>& events, std::map<VariantKey, CapacitySized>& out) {
  for (const TickEvent& e : events)
    if (const auto* c = std::get_if<CapacitySized>(&e)) out[{c->model, c->variant}] = *c;
}

}  // namespace

Result<WhatIfReport> what_if(const storage::EventStore& store, const WhatIfOptions& o) {
  auto start = replay_start(store, o.range);
  if (!start.ok()) return start.error();
  WhatIfReport report;
  report.recorded_policy = start.value().policy;
  report.what_if_policy = o.policy.empty() ? report.recorded_policy : o.policy;
  auto policy = find_policy(report.what_if_policy);
  if (!policy.ok()) return policy.error();

  std::map<VariantKey, VariantDifference> variants;
  std::map<VariantKey, CapacitySized> recorded_sizing, what_if_sizing;
  actors::FoldRange fold_range;
  fold_range.to_seq = o.range.to_seq;
  if (o.config) fold_range.config_override = &*o.config;
  fold_range.read_ahead = true;  // as verify folds (README.md)
  fold_range.for_each_model = parallel_for_each();
  std::vector<TickEvent> recorded_events;
  std::optional<Error> unreadable;  // a recorded tick event that cannot be decoded
  auto folded = actors::fold_recorded(
      store, *policy.value(), start.value().fold, fold_range,
      [&](actors::RecordedTick& t, const TickResult& r, const actors::ConfigUpdate&) {
        if (unreadable || !o.range.contains(t.seq, t.input.now_s)) return;
        ++report.ticks;
        recorded_events.clear();
        for (const actors::RecordedEvent& e : t.events) {
          auto event = e.decoded();
          if (!event.ok()) {
            unreadable = event.error();
            return;
          }
          recorded_events.push_back(std::move(event).value());
        }
        last_sizings(recorded_events, recorded_sizing);
        last_sizings(r.events, what_if_sizing);
        std::map<VariantKey, const Decision*> recomputed;
        for (const Decision& d : r.decisions) recomputed[{d.model, d.variant}] = &d;
        const double hours = t.input.interval_s / 3600.0;
        for (const TickEvent& e : recorded_events) {
          const auto* made = std::get_if<DecisionMade>(&e);
          if (made == nullptr) continue;
          const Decision& rec = made->decision;
          const VariantKey key{rec.model, rec.variant};
          VariantDifference& v = variants[key];
          v.model = rec.model;
          v.variant = rec.variant;
          ++v.decisions;
          v.recorded_replica_hours += rec.target_replicas * hours;
          const auto it = recomputed.find(key);
          const Decision* again = it == recomputed.end() ? nullptr : it->second;
          if (again != nullptr) v.what_if_replica_hours += again->target_replicas * hours;
          if (again != nullptr && again->target_replicas == rec.target_replicas && again->reason == rec.reason) continue;
          if (again == nullptr || again->target_replicas != rec.target_replicas) ++v.changed;
          ++report.changed;
          if (report.changes.size() < o.max_changes)
            report.changes.push_back({t.tick, t.input.now_s, rec, again ? *again : Decision{}});
        }
      });
  if (!folded.ok()) return folded.error();
  if (unreadable) return *unreadable;
  for (auto& [key, v] : variants) {
    if (const auto it = recorded_sizing.find(key); it != recorded_sizing.end()) v.recorded_last = it->second;
    if (const auto it = what_if_sizing.find(key); it != what_if_sizing.end()) v.what_if_last = it->second;
    report.variants.push_back(std::move(v));
  }
  return report;
}

}  // namespace capstan::replay
