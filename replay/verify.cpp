#include "replay/verify.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "domain/policies/policy.hpp"
#include "replay/parallel_for.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"

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

std::string payload_text(const actors::RecordedEvent& e) {
  auto event = storage::decode_event_value(e.seq, e.value);
  return event.ok() ? payload_text(event.value()) : "(unreadable: " + event.error().message + ")";
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

  auto diverge = [&](const actors::RecordedEvent* recorded, const storage::Event* recomputed, const actors::RecordedTick& t) {
    ++report.divergences;
    if (report.first.size() >= max_divergences) return;
    Divergence d;
    d.seq = recorded ? recorded->seq : t.seq;
    d.tick = t.tick;
    d.time_s = recorded ? recorded->time_s : recomputed->time_s;
    d.type = recorded ? recorded->type : storage::event_type(recomputed->payload);
    if (recomputed) {
      d.subject = subject_of(*recomputed);
    } else if (auto event = storage::decode_event_value(recorded->seq, recorded->value); event.ok()) {
      d.subject = subject_of(event.value());
    }
    d.recorded = recorded ? payload_text(*recorded) : "";
    d.recomputed = recomputed ? payload_text(*recomputed) : "";
    report.first.push_back(std::move(d));
  };

  actors::FoldRange fold_range;
  fold_range.to_seq = range.to_seq;
  fold_range.read_ahead = true;
  fold_range.for_each_model = parallel_for_each();  // one thread per core
  std::vector<char> same_at;  // by event of the tick: its recomputed bytes are the recorded ones
  auto folded = actors::fold_recorded(
      store, *policy.value(), start.value().fold, fold_range,
      [&](actors::RecordedTick& t, TickResult& r, const actors::ConfigUpdate&) {
        if (!range.contains(t.seq, t.input.now_s)) return;
        ++report.ticks_compared;
        // Each recomputed event encoded as the daemon stored it, in the layout the recorded
        // one was written in (a store written before decisions' compact layout verifies
        // too), against the stored bytes themselves: the recorded value is never decoded
        // unless it differs. The comparisons are independent, so they run on the cores the
        // models ran on: on this thread alone they were a twelfth of verify, with the
        // other core idle. Counted below, in seq order.
        const std::size_t both = std::min(t.events.size(), r.events.size());
        same_at.assign(both, 0);
        fold_range.for_each_model(both, [&](std::size_t i) {
          const actors::RecordedEvent& rec = t.events[i];
          const auto* stored = reinterpret_cast<const std::uint8_t*>(rec.value.data());
          storage::Event again{rec.seq, rec.time_s, std::move(r.events[i])};
          thread_local std::vector<std::uint8_t> bytes;
          bytes.clear();
          storage::write_event_value(again, bytes, storage::payload_schema(std::span(stored, rec.value.size())));
          // memcmp, not std::equal over a char and a byte per element: that loop was a
          // twentieth of verify's instructions.
          same_at[i] = bytes.size() == rec.value.size() && (bytes.empty() || std::memcmp(bytes.data(), stored, bytes.size()) == 0);
          r.events[i] = std::move(std::get<TickEvent>(again.payload));  // for a divergence's report
        });
        const std::size_t n = std::max(t.events.size(), r.events.size());
        storage::Event recomputed;
        for (std::size_t i = 0; i < n; ++i) {
          const actors::RecordedEvent* rec = i < t.events.size() ? &t.events[i] : nullptr;
          const storage::Event* again = nullptr;
          if (i < r.events.size()) {
            // Stamped as the recorded event was: the comparison is of what was computed.
            recomputed.seq = rec ? rec->seq : 0;
            recomputed.time_s = rec ? rec->time_s : t.input.now_s;
            again = &recomputed;
          }
          TypeCount& count = rec ? report.by_type[rec->type] : report.by_type[capstan::event_type(r.events[i])];
          ++count.compared;
          ++report.events_compared;
          if (i < both && same_at[i]) {
            ++count.matched;
            ++report.events_matched;
          } else {
            if (again) recomputed.payload = std::move(r.events[i]);
            diverge(rec, again, t);
          }
        }
      });
  if (!folded.ok()) return folded.error();
  report.ticks_folded = folded.value();
  return report;
}

}  // namespace capstan::replay
