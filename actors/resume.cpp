#include "actors/resume.hpp"

#include <set>

#include "actors/message_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan::actors {

namespace {

// A tick read back from the store, waiting to be folded.
struct RecordedTick {
  std::uint64_t tick = 0;
  TickInput input;
  std::set<ModelKey> timed_out;
  std::vector<Decision> decisions;
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

Result<Resumed> resume(const storage::EventStore& store, const TickPolicy& policy) {
  Resumed out;
  FleetMemory memory;
  std::optional<ConfigUpdate> config;

  auto snapshots = store.latest_snapshots();
  if (!snapshots.ok()) return snapshots.error();
  const storage::Snapshot* fleet = nullptr;
  for (const storage::Snapshot& s : snapshots.value())
    if (s.scope == "fleet") fleet = &s;
  if (fleet != nullptr) {
    auto j = unpack(fleet->bytes, "the fleet snapshot at seq " + std::to_string(fleet->seq));
    if (!j.ok()) return j.error();
    const std::string where = "the fleet snapshot at seq " + std::to_string(fleet->seq);
    auto read = decode_with<bool>(where, [&] {
      const FieldReader r(j.value(), "");
      expect_schema(r, 1);
      const std::string stored = r.at("policy").string();
      if (stored != policy.name())
        r.at("policy").fail("is the state of policy '" + stored + "', not '" + policy.name() +
                            "': run with --policy " + stored + " or on another --data-dir");
      out.start.last_tick = r.at("tick").unsigned64();
      out.last_now_s = r.at("now_s").number();
      auto update = from_message_json<ConfigUpdate>(r.at("config").json());
      if (!update.ok()) r.at("config").fail(update.error().message);
      config = std::move(update).value();
      const FieldReader awaiting = r.at("awaiting");
      for (std::size_t i = 0; i < awaiting.size(); ++i) {
        const FieldReader a = awaiting.at(i);
        out.start.awaiting[{read_model_key(a.at("model")), a.at("variant").string()}] = a.at("target").int32();
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
      memory.models[model.value().model] = model.value().state;
      for (auto& [name, variant] : model.value().variants) memory.variants[{model.value().model, name}] = variant;
    }
  }

  std::optional<RecordedTick> pending;
  std::optional<Error> failure;
  auto fold = [&](RecordedTick& t) {
    if (!config) {
      failure = invalid_argument("tick " + std::to_string(t.tick) + " has no configuration recorded before it");
      return;
    }
    // A folded tick is read once: its input is moved, not copied.
    TickInput input = std::move(t.input);
    std::erase_if(input.models, [&](const ModelTickInput& m) { return t.timed_out.count(m.model) > 0; });
    TickResult r = run_tick(std::move(memory), policy, input, tick_configs(*config));
    memory = std::move(r.next);
    if (r.decisions != t.decisions) ++out.mismatched_decisions;
    out.start.last_tick = t.tick;
    out.last_now_s = input.now_s;
    ++out.folded_ticks;
  };
  storage::EventFilter filter;
  filter.from_seq = out.snapshot_seq + 1;
  auto visited = store.for_each(filter, [&](const storage::Event& e) {
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, storage::TickStarted>) {
            if (pending) fold(*pending);
            pending = RecordedTick{};
            pending->tick = p.tick;
            pending->input.now_s = p.now_s;
            pending->input.interval_s = p.interval_s;
          } else if constexpr (std::is_same_v<P, storage::ConfigApplied>) {
            auto update = from_message_json<ConfigUpdate>(p.effective);
            if (!update.ok())
              failure = invalid_argument("config_applied at seq " + std::to_string(e.seq) + ": " + update.error().message);
            else
              config = std::move(update).value();
          } else if constexpr (std::is_same_v<P, storage::ObservationRecorded>) {
            if (pending) pending->input.models.push_back(p.input);
          } else if constexpr (std::is_same_v<P, storage::Incident>) {
            if (pending && p.model && p.kind == "model_timeout") pending->timed_out.insert(*p.model);
          } else if constexpr (std::is_same_v<P, storage::ActuationRecorded>) {
            if (p.status == "applied") out.start.awaiting[p.variant] = p.target;
            if (p.status == "acknowledged") out.start.awaiting.erase(p.variant);
          } else if constexpr (std::is_same_v<P, TickEvent>) {
            if (const auto* d = std::get_if<DecisionMade>(&p); d != nullptr && pending) pending->decisions.push_back(d->decision);
          }
        },
        e.payload);
    return !failure;
  });
  if (!visited.ok()) return visited.error();
  if (failure) return *failure;
  if (pending) fold(*pending);
  if (failure) return *failure;
  out.config = std::move(config);
  out.start.state = memory.fleet;
  out.start.models = model_snapshots(policy.name(), memory);
  return out;
}

}  // namespace capstan::actors
