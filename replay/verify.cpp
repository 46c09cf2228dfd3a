#include "replay/verify.hpp"

#include <algorithm>

#include "domain/policies/policy.hpp"

namespace capstan::replay {

namespace {

std::string subject_of(const storage::Event& e) {
  const TickEvent& t = std::get<TickEvent>(e.payload);
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, ParamsLearned> || std::is_same_v<X, ColdStartLearned>)
          return variant_name(x.variant.model, x.variant.variant);
        else if constexpr (std::is_same_v<X, ForecastMade>)
          return model_name(x.model);
        else if constexpr (std::is_same_v<X, DecisionMade>)
          return variant_name(x.decision.model, x.decision.variant);
        else
          return variant_name(x.model, x.variant);
      },
      t);
}

std::string payload_text(const storage::Event& e) {
  return storage::event_to_json(e).at("payload").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Result<VerifyReport> verify(const storage::EventStore& store, const ReplayRange& range, std::size_t max_divergences) {
  auto start = replay_start(store, range);
  if (!start.ok()) return start.error();
  auto policy = find_policy(start.value().policy);
  if (!policy.ok()) return policy.error();
  VerifyReport report;
  report.policy = start.value().policy;
  report.start_seq = start.value().fold.snapshot_seq;

  auto diverge = [&](const storage::Event* recorded, const storage::Event* recomputed, const actors::RecordedTick& t) {
    ++report.divergences;
    if (report.first.size() >= max_divergences) return;
    const storage::Event& either = recorded ? *recorded : *recomputed;
    Divergence d;
    d.seq = recorded ? recorded->seq : t.seq;
    d.tick = t.tick;
    d.time_s = either.time_s;
    d.type = storage::event_type(either.payload);
    d.subject = subject_of(either);
    d.recorded = recorded ? payload_text(*recorded) : "";
    d.recomputed = recomputed ? payload_text(*recomputed) : "";
    report.first.push_back(std::move(d));
  };

  actors::FoldRange fold_range;
  fold_range.to_seq = range.to_seq;
  std::string recorded_bytes, recomputed_bytes;
  auto folded = actors::fold_recorded(
      store, *policy.value(), start.value().fold, fold_range,
      [&](actors::RecordedTick& t, const TickResult& r, const actors::ConfigUpdate&) {
        if (!range.contains(t.seq, t.input.now_s)) return;
        ++report.ticks_compared;
        const std::size_t n = std::max(t.events.size(), r.events.size());
        storage::Event recomputed;
        for (std::size_t i = 0; i < n; ++i) {
          const storage::Event* rec = i < t.events.size() ? &t.events[i] : nullptr;
          if (i < r.events.size()) {
            recomputed.seq = rec ? rec->seq : 0;
            recomputed.time_s = rec ? rec->time_s : t.input.now_s;
            recomputed.payload = r.events[i];
          }
          const storage::Event* again = i < r.events.size() ? &recomputed : nullptr;
          TypeCount& count = report.by_type[storage::event_type((rec ? rec : again)->payload)];
          ++count.compared;
          ++report.events_compared;
          bool same = rec != nullptr && again != nullptr;
          if (same) {
            recorded_bytes = storage::encode_event_value(*rec);
            recomputed_bytes = storage::encode_event_value(*again);
            same = recorded_bytes == recomputed_bytes;
          }
          if (same) {
            ++count.matched;
            ++report.events_matched;
          } else {
            diverge(rec, again, t);
          }
        }
      });
  if (!folded.ok()) return folded.error();
  report.ticks_folded = folded.value();
  return report;
}

}  // namespace capstan::replay
