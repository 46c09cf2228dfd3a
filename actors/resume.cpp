#include "actors/resume.hpp"

#include <set>

#include "actors/message_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan::actors {

namespace {

// A tick read back from the store, waiting to be folded.
struct PendingTick {
  RecordedTick recorded;
  std::set<ModelKey> timed_out;
};

Result<nlohmann::json> unpack(const std::string& bytes, const std::string& what) {
  try {
    return nlohmann::json::from_msgpack(bytes);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(what + ": not a MessagePack value: " + e.what());
  }
}

}  // namespace

std::map<ModelKey, ModelSnapshot> model_snapshots(const std::string& policy, const FleetMemory& memory) {
  std::map<ModelKey, ModelSnapshot> out;
  for (const auto& [key, state] : memory.models) {
    ModelSnapshot& s = out[key];
    s.policy = policy;
    s.model = key;
    s.state = state;
  }
  for (const auto& [key, variant] : memory.variants) {
    ModelSnapshot& s = out[key.model];
    s.policy = policy;
    s.model = key.model;
    s.variants[key.variant] = variant;
  }
  return out;
}

Result<FoldStart> newest_snapshot(const storage::EventStore& store) {
  FoldStart out;
  auto snapshots = store.latest_snapshots();
  if (!snapshots.ok()) return snapshots.error();
  const storage::Snapshot* fleet = nullptr;
  for (const storage::Snapshot& s : snapshots.value())
    if (s.scope == "fleet") fleet = &s;
  if (fleet == nullptr) return out;
  const std::string where = "the fleet snapshot at seq " + std::to_string(fleet->seq);
  auto j = unpack(fleet->bytes, where);
  if (!j.ok()) return j.error();
  auto read = decode_with<bool>(where, [&] {
    const FieldReader r(j.value(), "");
    expect_schema(r, 1);
    out.policy = r.at("policy").string();
    out.last_tick = r.at("tick").unsigned64();
    out.last_now_s = r.at("now_s").number();
    auto update = from_message_json<ConfigUpdate>(r.at("config").json());
    if (!update.ok()) r.at("config").fail(update.error().message);
    out.config = std::move(update).value();
    const FieldReader awaiting = r.at("awaiting");
    for (std::size_t i = 0; i < awaiting.size(); ++i) {
      const FieldReader a = awaiting.at(i);
      out.awaiting[{read_model_key(a.at("model")), a.at("variant").string()}] = a.at("target").int32();
    }
    return true;
  });
  if (!read.ok()) return read.error();
  out.snapshot_seq = fleet->seq;
  for (const storage::Snapshot& s : snapshots.value()) {
    if (s.scope == "fleet" || s.seq != fleet->seq) continue;  // an older model snapshot: the model has left
    auto mj = unpack(s.bytes, "the snapshot of " + s.scope);
    if (!mj.ok()) return mj.error();
    auto model = from_message_json<ModelSnapshot>(mj.value());
    if (!model.ok()) return invalid_argument("the snapshot of " + s.scope + ": " + model.error().message);
    out.memory.models[model.value().model] = model.value().state;
    for (auto& [name, variant] : model.value().variants) out.memory.variants[{model.value().model, name}] = variant;
  }
  return out;
}

Result<std::uint64_t> fold_recorded(const storage::EventStore& store, const TickPolicy& policy, FoldStart& start,
                                    const FoldRange& range, const FoldVisitor& visit) {
  std::uint64_t folded = 0;
  std::optional<PendingTick> pending;
  std::optional<Error> failure;
  auto fold = [&](PendingTick& t) {
    const ConfigUpdate* config = range.config_override ? range.config_override : start.config ? &*start.config : nullptr;
    if (config == nullptr) {
      failure = invalid_argument("tick " + std::to_string(t.recorded.tick) + " has no configuration recorded before it");
      return;
    }
    std::erase_if(t.recorded.input.models, [&](const ModelTickInput& m) { return t.timed_out.count(m.model) > 0; });
    TickResult r = run_tick(std::move(start.memory), policy, t.recorded.input, tick_configs(*config));
    start.memory = std::move(r.next);
    start.last_tick = t.recorded.tick;
    start.last_now_s = t.recorded.input.now_s;
    ++folded;
    if (visit) visit(t.recorded, r, *config);
  };
  storage::EventFilter filter;
  filter.from_seq = start.snapshot_seq + 1;
  auto visited = store.for_each(filter, [&](const storage::Event& e) {
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, storage::TickStarted>) {
            if (pending) fold(*pending);
            pending.reset();
            if (e.seq > range.to_seq) return;
            pending.emplace();
            pending->recorded.tick = p.tick;
            pending->recorded.seq = e.seq;
            pending->recorded.input.now_s = p.now_s;
            pending->recorded.input.interval_s = p.interval_s;
          } else if constexpr (std::is_same_v<P, storage::ConfigApplied>) {
            auto update = from_message_json<ConfigUpdate>(p.effective);
            if (!update.ok())
              failure = invalid_argument("config_applied at seq " + std::to_string(e.seq) + ": " + update.error().message);
            else
              start.config = std::move(update).value();
          } else if constexpr (std::is_same_v<P, storage::ObservationRecorded>) {
            if (pending) pending->recorded.input.models.push_back(*p.input);
          } else if constexpr (std::is_same_v<P, storage::Incident>) {
            if (pending && p.model && p.kind == "model_timeout") pending->timed_out.insert(*p.model);
          } else if constexpr (std::is_same_v<P, storage::ActuationRecorded>) {
            if (p.status == "applied") start.awaiting[p.variant] = p.target;
            if (p.status == "acknowledged") start.awaiting.erase(p.variant);
          } else if constexpr (std::is_same_v<P, TickEvent>) {
            if (pending) pending->recorded.events.push_back(e);
          }
        },
        e.payload);
    // Past the range and its last tick: nothing more to read. (An event past to_seq that
    // is read belongs to the last tick, which is folded whole.)
    return !failure && (e.seq <= range.to_seq || pending.has_value());
  });
  if (!visited.ok()) return visited.error();
  if (failure) return *failure;
  if (pending) fold(*pending);
  if (failure) return *failure;
  return folded;
}

Result<Resumed> resume(const storage::EventStore& store, const TickPolicy& policy) {
  auto start = newest_snapshot(store);
  if (!start.ok()) return start.error();
  FoldStart& s = start.value();
  if (s.snapshot_seq > 0 && s.policy != policy.name())
    return invalid_argument("the fleet snapshot at seq " + std::to_string(s.snapshot_seq) + ": policy: is the state of policy '" +
                            s.policy + "', not '" + policy.name() + "': run with --policy " + s.policy +
                            " or on another --data-dir");
  Resumed out;
  out.snapshot_seq = s.snapshot_seq;
  auto folded = fold_recorded(store, policy, s, {}, [&](RecordedTick& t, const TickResult& r, const ConfigUpdate&) {
    std::size_t recorded = 0;
    bool same = true;
    for (const storage::Event& e : t.events)
      if (const auto* d = std::get_if<DecisionMade>(&std::get<TickEvent>(e.payload))) {
        same = same && recorded < r.decisions.size() && r.decisions[recorded] == d->decision;
        ++recorded;
      }
    if (!same || recorded != r.decisions.size()) ++out.mismatched_decisions;
  });
  if (!folded.ok()) return folded.error();
  out.folded_ticks = folded.value();
  out.config = std::move(s.config);
  out.last_now_s = s.last_now_s;
  out.start.last_tick = s.last_tick;
  out.start.awaiting = std::move(s.awaiting);
  out.start.state = s.memory.fleet;
  out.start.models = model_snapshots(policy.name(), s.memory);
  return out;
}

}  // namespace capstan::actors
