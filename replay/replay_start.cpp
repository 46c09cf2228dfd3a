#include "replay/replay_start.hpp"

#include "actors/message_codec.hpp"

namespace capstan::replay {

namespace {

// The first event's sequence, 0 in an empty store.
Result<std::uint64_t> first_seq(const storage::EventStore& store) {
  std::uint64_t first = 0;
  auto ran = store.for_each({}, [&](const storage::Event& e) {
    first = e.seq;
    return false;
  });
  if (!ran.ok()) return ran.error();
  return first;
}

// The policy named by the first configuration recorded.
Result<std::string> first_policy(const storage::EventStore& store) {
  storage::EventFilter filter;
  filter.type = "config_applied";
  std::optional<Result<actors::ConfigUpdate>> update;
  auto ran = store.for_each(filter, [&](const storage::Event& e) {
    update = actors::from_message_json<actors::ConfigUpdate>(std::get<storage::ConfigApplied>(e.payload).effective);
    return false;
  });
  if (!ran.ok()) return ran.error();
  if (!update) return invalid_argument("the store records no configuration (no config_applied event): nothing to replay");
  if (!update->ok()) return invalid_argument("the first config_applied event: " + update->error().message);
  return update->value().policy;
}

}  // namespace

Result<ReplayStart> replay_start(const storage::EventStore& store, const ReplayRange& range) {
  ReplayStart out;
  // A range from the first event starts from the empty fleet: the newest snapshot (every
  // model's state, a few percent of verifying a 200k-event history) is decoded only when
  // the range starts later and it may come before it, or to name it in an error.
  const bool by_seq = range.from_seq > 1;
  const bool by_time = range.from_time_s.has_value();
  if (by_seq || by_time) {
    auto snapshot = actors::newest_snapshot(store);
    if (!snapshot.ok()) return snapshot.error();
    // The snapshot's state is after its seq and its last tick's time: every tick of a
    // range that starts after both comes after it.
    const actors::FoldStart& at = snapshot.value();
    const bool before_range = at.snapshot_seq > 0 && (!by_seq || at.snapshot_seq < range.from_seq) &&
                              (!by_time || at.last_now_s < *range.from_time_s);
    if (before_range) {
      out.fold = std::move(snapshot).value();
      out.policy = out.fold.policy;
      return out;
    }
  }
  auto first = first_seq(store);
  if (!first.ok()) return first.error();
  if (first.value() == 0) return invalid_argument("the store holds no events: nothing to replay");
  if (first.value() > 1) {
    auto snapshot = actors::newest_snapshot(store);
    if (!snapshot.ok()) return snapshot.error();
    return invalid_argument("the events before seq " + std::to_string(first.value()) +
                            " were removed by retention and the newest snapshot (seq " +
                            std::to_string(snapshot.value().snapshot_seq) +
                            ") is not before the range: start the range after it");
  }
  auto policy = first_policy(store);
  if (!policy.ok()) return policy.error();
  out.policy = policy.value();
  return out;
}

std::string model_name(const ModelKey& model) { return model.ns + "/" + model.model_id; }
std::string variant_name(const ModelKey& model, const std::string& variant) { return model_name(model) + "/" + variant; }

}  // namespace capstan::replay
