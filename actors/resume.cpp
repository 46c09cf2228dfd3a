#include "actors/resume.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "actors/message_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"

namespace capstan::actors {

namespace {

// A tick read back from the store, with the configuration in force when it ended (a
// config_applied recorded during a tick applies to it, as it did live).
struct ReadTick {
  RecordedTick recorded;
  std::shared_ptr<const ConfigUpdate> config;
};

// The type names of the tick's own events, whose values the fold keeps undecoded.
template <std::size_t... I>
std::set<std::string, std::less<>> tick_event_names(std::index_sequence<I...>) {
  return {capstan::event_type(TickEvent(std::in_place_index<I>))...};
}
bool is_tick_event(std::string_view type) {
  static const auto kNames = tick_event_names(std::make_index_sequence<std::variant_size_v<TickEvent>>());
  return kNames.contains(type);
}

// Assembles ticks from the store's values in seq order: decodes what a tick reads
// (tick, observation, config_applied, incident) and the actuations (the targets still
// awaited), keeps the bytes of the tick's events, and hands each tick on once the next
// one starts or the scan ends.
class TickAssembler {
 public:
  using Emit = std::function<bool(ReadTick&&)>;  // false: stop reading
  TickAssembler(FoldStart& start, std::uint64_t to_seq, Emit emit)
      : start_(start),
        config_(start.config ? std::make_shared<const ConfigUpdate>(*start.config) : nullptr),
        to_seq_(to_seq),
        emit_(std::move(emit)) {}

  // The store scan's visitor: false stops it (past the range, an error, or emit said so).
  bool read(std::uint64_t seq, std::string_view value) {
    // The type from the value's end, which a tick event's kept bytes need no more of
    // (they are compared or read whole later); the envelope read whole only when its end
    // is not as written.
    auto tail = storage::read_event_tail(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size()));
    std::optional<storage::EventHeader> header;
    if (!tail) {
      auto read = storage::decode_event_header(seq, value);
      if (!read) return fail(read.error());
      header = std::move(read).value();
      tail = storage::EventTail{header->type, header->time_s};
    }
    if (is_tick_event(tail->type)) {
      if (pending_) pending_->recorded.events.push_back({seq, tail->time_s, std::string(tail->type), std::string(value)});
    } else {
      auto event = storage::decode_event_value(seq, value);
      if (!event) return fail(event.error());
      if (!apply(event.value())) return false;
    }
    // Past the range and its last tick: nothing more to read. (An event past to_seq that
    // is read belongs to the last tick, which is folded whole.)
    return !failure && (seq <= to_seq_ || pending_.has_value());
  }
  // Hands on the tick still open when the scan ended.
  void finish() {
    if (pending_ && !failure) emit_pending();
  }

  std::optional<Error> failure;
  const std::shared_ptr<const ConfigUpdate>& config() const { return config_; }

 private:
  bool fail(Error e) {
    failure = std::move(e);
    return false;
  }
  bool emit_pending() {
    events_before_ = pending_->recorded.events.size();
    models_before_ = pending_->recorded.input.models.size();
    ReadTick t{std::move(pending_->recorded), config_};
    std::erase_if(t.recorded.input.models, [&](const ModelTickInput& m) { return timed_out_.count(m.model) > 0; });
    pending_.reset();
    timed_out_.clear();
    return emit_(std::move(t));
  }
  // False: stop reading.
  bool apply(storage::Event& e) {
    if (auto* p = std::get_if<storage::TickStarted>(&e.payload)) {
      if (pending_ && !emit_pending()) return false;
      if (e.seq > to_seq_) return true;
      pending_.emplace();
      // Sized as the tick before: a fleet's ticks record about as many events each, and
      // growing to hundreds moved every event kept so far a dozen times.
      pending_->recorded.events.reserve(events_before_);
      pending_->recorded.input.models.reserve(models_before_);
      pending_->recorded.tick = p->tick;
      pending_->recorded.seq = e.seq;
      pending_->recorded.input.now_s = p->now_s;
      pending_->recorded.input.interval_s = p->interval_s;
    } else if (auto* config = std::get_if<storage::ConfigApplied>(&e.payload)) {
      auto update = from_message_json<ConfigUpdate>(config->effective);
      if (!update.ok())
        return fail(invalid_argument("config_applied at seq " + std::to_string(e.seq) + ": " + update.error().message));
      config_ = std::make_shared<const ConfigUpdate>(std::move(update).value());
    } else if (auto* observed = std::get_if<storage::ObservationRecorded>(&e.payload)) {
      if (pending_) pending_->recorded.input.models.push_back(*observed->input);
    } else if (auto* incident = std::get_if<storage::Incident>(&e.payload)) {
      if (pending_ && incident->model && incident->kind == "model_timeout") timed_out_.insert(*incident->model);
    } else if (auto* actuation = std::get_if<storage::ActuationRecorded>(&e.payload)) {
      if (actuation->status == "applied") start_.awaiting[actuation->variant] = actuation->target;
      if (actuation->status == "acknowledged") start_.awaiting.erase(actuation->variant);
    }
    return true;
  }

  FoldStart& start_;  // its awaiting targets; the fold owns the rest
  std::shared_ptr<const ConfigUpdate> config_;
  std::uint64_t to_seq_;
  Emit emit_;
  std::optional<ReadTick> pending_;
  std::size_t events_before_ = 0, models_before_ = 0;  // the last tick's
  std::set<ModelKey> timed_out_;
};

// The ticks read ahead, from the reading thread to the folding one; bounded, so that
// reading stays a few ticks ahead instead of holding the history in memory.
class TickQueue {
 public:
  explicit TickQueue(std::size_t capacity) : capacity_(capacity) {}
  // False once the folding side has stopped.
  bool push(ReadTick&& t) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return cancelled_ || ticks_.size() < capacity_; });
    if (cancelled_) return false;
    ticks_.push_back(std::move(t));
    ready_.notify_one();
    return true;
  }
  // Empty once the reading side has closed and every tick is taken.
  std::optional<ReadTick> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !ticks_.empty(); });
    if (ticks_.empty()) return std::nullopt;
    std::optional<ReadTick> t(std::move(ticks_.front()));
    ticks_.pop_front();
    room_.notify_one();
    return t;
  }
  void close() {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }
  void cancel() {
    const std::lock_guard lock(mutex_);
    cancelled_ = true;
    room_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable room_, ready_;
  std::deque<ReadTick> ticks_;
  bool closed_ = false, cancelled_ = false;
};

constexpr std::size_t kTicksReadAhead = 4;

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

Result<TickEvent> RecordedEvent::decoded() const {
  auto event = storage::decode_event_value(seq, value);
  if (!event) return event.error();
  if (auto* tick_event = std::get_if<TickEvent>(&event.value().payload)) return std::move(*tick_event);
  return invalid_argument("event " + std::to_string(seq) + ": type: '" + type + "' is not a tick event");
}

Result<std::uint64_t> fold_recorded(const storage::EventStore& store, const TickPolicy& policy, FoldStart& start,
                                    const FoldRange& range, const FoldVisitor& visit) {
  std::uint64_t folded = 0;
  std::optional<Error> failure;
  const ConfigUpdate* configs_of = nullptr;  // whose TickConfigs `configs` holds
  std::shared_ptr<const ConfigUpdate> held;  // keeps it alive, so that its address is not reused
  TickConfigs configs;
  auto fold = [&](ReadTick& t) {
    const ConfigUpdate* config = range.config_override ? range.config_override : t.config.get();
    if (config == nullptr) {
      failure = invalid_argument("tick " + std::to_string(t.recorded.tick) + " has no configuration recorded before it");
      return false;
    }
    if (config != configs_of) {
      configs = tick_configs(*config);
      configs_of = config;
      held = t.config;
    }
    TickResult r = run_tick(std::move(start.memory), policy, t.recorded.input, configs, range.for_each_model);
    start.memory = std::move(r.next);
    start.last_tick = t.recorded.tick;
    start.last_now_s = t.recorded.input.now_s;
    ++folded;
    if (visit) visit(t.recorded, r, *config);
    return true;
  };
  storage::EventFilter filter;
  filter.from_seq = start.snapshot_seq + 1;
  Result<bool> scanned = true;
  if (!range.read_ahead) {
    TickAssembler assembler(start, range.to_seq, [&](ReadTick&& t) { return fold(t); });
    scanned = store.for_each_value(filter, [&](std::uint64_t seq, std::string_view value) { return assembler.read(seq, value); });
    if (scanned.ok()) assembler.finish();
    if (!failure) failure = assembler.failure;
    start.config = assembler.config() ? std::optional<ConfigUpdate>(*assembler.config()) : std::nullopt;
  } else {
    TickQueue queue(kTicksReadAhead);
    TickAssembler assembler(start, range.to_seq, [&](ReadTick&& t) { return queue.push(std::move(t)); });
    std::exception_ptr reader_failure;
    {
      std::jthread reader([&] {
        try {
          scanned = store.for_each_value(filter, [&](std::uint64_t seq, std::string_view value) { return assembler.read(seq, value); });
          if (scanned.ok()) assembler.finish();
        } catch (...) {
          reader_failure = std::current_exception();
        }
        queue.close();
      });
      // However the folding stops (an error, the visitor throws), the reader is told
      // before it is joined, so that it never waits for room that will not come.
      struct Cancel {
        TickQueue& queue;
        ~Cancel() { queue.cancel(); }
      } cancel{queue};
      while (auto t = queue.pop()) {
        if (!fold(*t)) break;
      }
    }
    if (reader_failure) std::rethrow_exception(reader_failure);
    if (!failure) failure = assembler.failure;
    start.config = assembler.config() ? std::optional<ConfigUpdate>(*assembler.config()) : std::nullopt;
  }
  if (!scanned.ok()) return scanned.error();
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
  std::vector<std::uint8_t> again;
  auto folded = fold_recorded(store, policy, s, {}, [&](RecordedTick& t, const TickResult& r, const ConfigUpdate&) {
    std::size_t recorded = 0;
    bool same = true;
    for (const RecordedEvent& e : t.events) {
      if (e.type != "decision") continue;
      // Compared as `replay verify` compares: the recomputed decision written in the
      // recorded one's layout, against its bytes. Decoding the recorded one would render
      // its reason's sentence again (a compact decision stores none), ten times the cost.
      if (same && recorded < r.decisions.size()) {
        const auto* stored = reinterpret_cast<const std::uint8_t*>(e.value.data());
        again.clear();
        storage::write_event_value({e.seq, e.time_s, TickEvent{DecisionMade{r.decisions[recorded]}}}, again,
                                   storage::payload_schema(std::span(stored, e.value.size())));
        same = again.size() == e.value.size() && std::memcmp(again.data(), stored, again.size()) == 0;
      } else {
        same = false;
      }
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
