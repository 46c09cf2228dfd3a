#include "actors/fleet_actor.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>
#include <set>
#include <utility>

#include "actors/message_codec.hpp"
#include "actors/model_actor.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/core/format.hpp"

namespace capstan::actors {

// One tick in flight.
struct TickRun {
  TickTime time;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  caf::typed_response_promise<TickSummary> promise;
  TickSummary summary;
  fleet::Observed observed;
  // The models planned, input order, moved out of `observed` and shared with their plans.
  std::vector<std::shared_ptr<const ModelTickInput>> inputs;
  std::vector<std::optional<PlanReply>> replies;   // per planned model
  std::vector<bool> answered;                       // per planned model: replied or failed
  std::size_t left = 0;
  bool planning_over = false;  // every model answered or the deadline passed: later answers are ignored
  std::vector<storage::Event> events;
  std::vector<Decision> decisions;
  // A snapshot tick: the fleet's snapshot first, then model k's at k + 1 (the models
  // asked, in `snapshot_models`' order), each in its place as it arrives.
  std::vector<storage::Snapshot> snapshots;
  std::vector<ModelKey> snapshot_models;
  std::vector<bool> snapshotted;  // per model asked
  std::size_t snapshots_left = 0;
  bool snapshotting_over = false;
  bool snapshots_gathered = false;               // every model's is in: to append once the decisions are durable
  std::optional<std::uint64_t> decisions_seq;    // the decision batch's last seq, once durable
  // What the tick waits for before its last batch and its reply: the actuations'
  // results, and on a snapshot tick the snapshot written or given up.
  int stages_left = 1;
};

namespace {

using self_ptr = fleet_actor::stateful_pointer<FleetActorState>;
using RunPtr = std::shared_ptr<TickRun>;

caf::duration seconds(double s) { return caf::duration{std::chrono::microseconds(static_cast<long long>(s * 1e6))}; }

std::string model_label(const ModelKey& m) { return m.ns + "/" + m.model_id; }

double ms_since_start(const TickRun& run) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - run.started).count();
}

void add_event(TickRun& run, storage::Payload payload) { run.events.push_back({0, run.time.now_s, std::move(payload)}); }

void add_incident(TickRun& run, std::optional<ModelKey> model, std::string kind, std::string detail) {
  run.summary.incidents.push_back((model ? model_label(*model) + ": " : std::string()) + detail);
  add_event(run, storage::Incident{std::move(model), std::move(kind), std::move(detail)});
}

model_actor model_for(self_ptr self, const ModelKey& key) {
  auto& s = self->state;
  if (auto it = s.models.find(key); it != s.models.end()) return it->second;
  ModelSnapshot start;
  start.policy = s.policy->name();
  start.model = key;
  if (auto r = s.restored.find(key); r != s.restored.end()) {
    start = std::move(r->second);
    s.restored.erase(r);
  }
  auto actor = self->spawn<caf::linked>(model_behavior, s.policy, std::move(start), s.options.timeouts.model_s);
  s.models.emplace(key, actor);
  return actor;
}

bool configured(const ConfigUpdate& config, const ModelKey& key) {
  return config.any_model || config.models.count(key) > 0;
}

// Stops the actors of models the configuration no longer has; returns their keys.
std::vector<ModelKey> stop_unconfigured(self_ptr self) {
  auto& s = self->state;
  std::vector<ModelKey> stopped;
  for (auto it = s.models.begin(); it != s.models.end();) {
    if (configured(s.config, it->first)) {
      ++it;
      continue;
    }
    self->unlink_from(it->second);
    self->send_exit(it->second, caf::exit_reason::user_shutdown);
    stopped.push_back(it->first);
    it = s.models.erase(it);
  }
  return stopped;
}

void deliver(const RunPtr& run) {
  run->summary.done_ms = ms_since_start(*run);
  run->promise.deliver(std::move(run->summary));
}

// A durable batch's events back from the journal: into the summary when it carries them.
void journaled(const FleetActorState& s, const RunPtr& run, JournalAck& ack) {
  run->summary.last_seq = ack.last_seq;
  if (!s.options.summary_events) return;
  auto& kept = run->summary.events;
  if (kept.empty()) kept = std::move(ack.events);
  else std::move(ack.events.begin(), ack.events.end(), std::back_inserter(kept));
}

void fail(const RunPtr& run, const std::string& what) {
  run->promise.deliver(caf::make_error(caf::sec::runtime_error, what));
}

// Appends what the tick recorded after its decision batch (actuations, an actuation or
// snapshot incident), then replies to the driver.
void journal_then_deliver(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  if (run->events.empty()) return deliver(run);
  self->request(s.journal, seconds(s.options.timeouts.journal_s), append_atom::value,
                JournalBatch{std::move(run->events), {}, std::nullopt})
      .then(
          [self, run](JournalAck& ack) {
            journaled(self->state, run, ack);
            deliver(run);
          },
          [run](caf::error& err) { fail(run, "journal: " + to_string(err)); });
}

// One of the stages the tick's end waits for is over (TickRun::stages_left).
void stage_done(self_ptr self, const RunPtr& run) {
  if (--run->stages_left == 0) journal_then_deliver(self, run);
}

void actuate(self_ptr self, const RunPtr& run, std::vector<std::uint64_t> decision_seqs) {
  auto& s = self->state;
  if (run->decisions.empty()) return stage_done(self, run);
  ActuationRequest request{run->decisions, std::move(decision_seqs), run->time.now_s};
  run->summary.decisions = std::move(run->decisions);
  self->request(s.actuator, seconds(s.options.timeouts.actuation_s), actuate_atom::value, std::move(request))
      .then(
          [self, run](ActuationReport& report) {
            auto& s = self->state;
            for (storage::ActuationRecorded& a : report.results) {
              if (a.status == "applied") s.awaiting[a.variant] = a.target;
              if (a.status == "failed")
                run->summary.incidents.push_back(a.variant.model.model_id + "/" + a.variant.variant + ": scaling to " +
                                                 std::to_string(a.target) + " failed: " + a.error);
              add_event(*run, std::move(a));
            }
            stage_done(self, run);
          },
          [self, run](caf::error& err) {
            // A connector that hangs or fails: the tick is over all the same, and the
            // next tick asserts every target again.
            add_incident(*run, std::nullopt, "actuation_timeout", "the connector did not answer: " + to_string(err));
            stage_done(self, run);
          });
}

// The tick's decisions back out of their events, which the journal's ack returns
// (JournalAck::events), before `journaled` keeps the events or drops them: moved when
// they are dropped, copied when the summary keeps them.
void take_decisions(const FleetActorState& s, TickRun& run, JournalAck& ack, std::size_t first, std::size_t n) {
  run.decisions.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Decision& d = std::get<DecisionMade>(std::get<TickEvent>(ack.events.at(first + i).payload)).decision;
    if (s.options.summary_events) {
      run.decisions.push_back(d);
    } else {
      run.decisions.push_back(std::move(d));
    }
  }
}

void append_snapshots(self_ptr self, const RunPtr& run);

// The tick's decision batch: durable before anything is actuated. A snapshot, slower to
// gather and to write, follows in a batch of its own (append_snapshots), so it delays
// no actuation.
void journal_tick(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  // Where each decision event lands: the batch's last events, in decision order. The
  // decisions move into them rather than being copied (10,000 a tick at 10,000 models)
  // and come back with the ack.
  const std::size_t first_decision = run->events.size();
  const std::size_t decisions = run->decisions.size();
  for (Decision& d : run->decisions) add_event(*run, DecisionMade{std::move(d)});
  run->decisions.clear();
  // What is recorded from here on (actuations, incidents) goes into the tick's last batch.
  self->request(s.journal, seconds(s.options.timeouts.journal_s), append_atom::value,
                JournalBatch{std::exchange(run->events, {}), {}, std::nullopt})
      .then(
          [self, run, first_decision, decisions](JournalAck& ack) {
            run->summary.durable_ms = ms_since_start(*run);
            run->decisions_seq = ack.last_seq;
            take_decisions(self->state, *run, ack, first_decision, decisions);
            journaled(self->state, run, ack);
            std::vector<std::uint64_t> seqs;
            for (std::size_t i = 0; i < decisions; ++i) seqs.push_back(ack.first_seq + first_decision + i);
            actuate(self, run, std::move(seqs));
            append_snapshots(self, run);
          },
          [run](caf::error& err) { fail(run, "journal: " + to_string(err)); });
}

std::string fleet_snapshot_bytes(const FleetActorState& s, const TickTime& time) {
  nlohmann::json awaiting = nlohmann::json::array();
  for (const auto& [key, target] : s.awaiting)
    awaiting.push_back({{"model", encode_model_key(key.model)}, {"variant", key.variant}, {"target", target}});
  const nlohmann::json j = {{"schema", 1},
                            {"policy", s.policy->name()},
                            {"tick", s.tick},
                            {"now_s", time.now_s},
                            {"config", to_message_json(s.config)},
                            {"awaiting", awaiting}};
  const auto bytes = nlohmann::json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

// The snapshot tick's gathering is over, with every model's snapshot or (`failure`)
// none: a snapshot is complete or not written, and the tick goes on without it.
// `run` by value: it may be the state's own pointer, which this resets.
void snapshots_done(self_ptr self, RunPtr run, std::optional<std::pair<ModelKey, std::string>> failure) {
  run->snapshotting_over = true;
  self->state.snapshotting.reset();
  if (!failure) {
    run->snapshots_gathered = true;
    return append_snapshots(self, run);
  }
  run->snapshots.clear();
  add_incident(*run, failure->first, "snapshot_failed", "no snapshot this tick: " + failure->second);
  stage_done(self, run);
}

// Once the decisions are durable and every snapshot is in: the snapshots, as the state
// after the decision batch (its last seq), in a batch of their own, then the retention.
void append_snapshots(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  if (!run->snapshots_gathered || !run->decisions_seq) return;
  run->snapshots_gathered = false;  // appended once
  for (storage::Snapshot& snapshot : run->snapshots) snapshot.seq = *run->decisions_seq;
  std::optional<storage::RetentionPolicy> retention;
  if (s.options.retention_max_age_s > 0 || s.options.retention_max_bytes > 0)
    retention = storage::RetentionPolicy{s.options.retention_max_age_s, s.options.retention_max_bytes, run->time.now_s};
  self->request(s.journal, seconds(s.options.timeouts.journal_s), append_atom::value,
                JournalBatch{{}, std::exchange(run->snapshots, {}), retention})
      .then([self, run](JournalAck&) { stage_done(self, run); },
            [self, run](caf::error& err) {
              add_incident(*run, std::nullopt, "snapshot_failed", "no snapshot this tick: journal: " + to_string(err));
              stage_done(self, run);
            });
}

// Model `k`'s answer to tick `tick`'s snapshot, if that tick still waits for it.
TickRun* snapshotting_run(self_ptr self, std::uint64_t tick, std::uint64_t k) {
  TickRun* run = self->state.snapshotting.get();
  if (!run || run->snapshotting_over || run->summary.tick != tick || k >= run->snapshot_models.size() ||
      run->snapshotted[k])
    return nullptr;
  return run;
}

// Every N ticks the fleet's and each model's state are snapshot, as they are once this
// tick settles (the models have their settle before this request). The models are asked
// one-way and encode their own (snapshot_listener); one deadline covers them all.
void start_snapshot(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  if (s.options.snapshot_every_ticks <= 0 || s.tick % static_cast<std::uint64_t>(s.options.snapshot_every_ticks) != 0 ||
      s.models.empty())
    return;
  ++run->stages_left;
  run->snapshots.reserve(1 + s.models.size());
  run->snapshots.push_back({"fleet", 0, run->time.now_s, fleet_snapshot_bytes(s, run->time)});
  run->snapshots.resize(1 + s.models.size());
  run->snapshotted.assign(s.models.size(), false);
  run->snapshots_left = s.models.size();
  s.snapshotting = run;
  self->delayed_send(caf::actor_cast<fleet_actor>(self),
                     std::chrono::microseconds(static_cast<long long>(s.options.timeouts.model_s * 1e6)), deadline_atom::value,
                     run->summary.tick, snapshot_atom::value);
  for (const auto& [key, actor] : s.models) {
    self->send(actor, snapshot_atom::value, run->summary.tick, static_cast<std::uint64_t>(run->snapshot_models.size()));
    run->snapshot_models.push_back(key);
  }
}

void snapshot_arrived(self_ptr self, TickRun& run, std::uint64_t k, storage::Snapshot snapshot) {
  snapshot.time_s = run.time.now_s;
  run.snapshots[k + 1] = std::move(snapshot);
  run.snapshotted[k] = true;
  if (--run.snapshots_left > 0) return;
  snapshots_done(self, self->state.snapshotting, std::nullopt);
}

// Models stopped while their snapshot was awaited never answer: no snapshot this tick,
// rather than waiting for the deadline.
void stopped_while_snapshotting(self_ptr self, const std::vector<ModelKey>& stopped) {
  const RunPtr run = self->state.snapshotting;
  if (!run || run->snapshotting_over) return;
  for (std::size_t k = 0; k < run->snapshot_models.size(); ++k)
    if (!run->snapshotted[k] && std::find(stopped.begin(), stopped.end(), run->snapshot_models[k]) != stopped.end())
      return snapshots_done(self, run,
                            std::pair{run->snapshot_models[k],
                                      std::string("its actor was stopped: the model left the configuration")});
}

void finish_plans(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  run->planning_over = true;
  s.planning.reset();
  std::vector<ModelProposal> proposals;
  std::vector<model_actor> planned;
  std::vector<TickEvent> plan_events;
  // Learn's events, model by model, then plan's: the one driver's order.
  for (std::size_t k = 0; k < run->inputs.size(); ++k) {
    const ModelKey& key = run->inputs[k]->model;
    if (!run->replies[k]) continue;
    PlanReply& reply = *run->replies[k];
    for (TickEvent& e : reply.learn_events) add_event(*run, std::move(e));
    for (TickEvent& e : reply.plan_events) plan_events.push_back(std::move(e));
    proposals.push_back(std::move(reply.proposal));
    planned.push_back(s.models.at(key));
  }
  for (TickEvent& e : plan_events) add_event(*run, std::move(e));
  Allocated allocated = s.policy->allocate(std::move(s.fleet), proposals, s.config.fleet, run->time);
  s.fleet = std::move(allocated.next);
  for (TickEvent& e : allocated.events) add_event(*run, std::move(e));
  std::size_t first = 0;
  for (std::size_t k = 0; k < proposals.size(); ++k) {
    const std::size_t n = proposals[k].decisions.size();
    std::vector<Decision> mine(allocated.decisions.begin() + static_cast<std::ptrdiff_t>(first),
                               allocated.decisions.begin() + static_cast<std::ptrdiff_t>(first + n));
    self->send(planned[k], settle_atom::value, SettleRequest{std::move(mine), s.config.await_approval});
    first += n;
  }
  run->decisions = std::move(allocated.decisions);
  run->summary.planned_ms = ms_since_start(*run);
  start_snapshot(self, run);
  journal_tick(self, run);
}

// The targets the fleet now shows reached, as `acknowledged` events (no longer awaited).
std::vector<storage::Event> acknowledged(FleetActorState& s, const TickRun& run) {
  std::vector<storage::Event> out;
  for (const ModelTickInput& m : run.observed.input.models)
    for (const VariantTickInput& v : m.variants) {
      const VariantKey key{m.model, v.state.spec.name};
      const auto it = s.awaiting.find(key);
      if (it == s.awaiting.end() || v.state.current_replicas != it->second || v.state.pending_replicas != 0) continue;
      out.push_back({0, run.time.now_s,
                     storage::ActuationRecorded{key, "acknowledged", it->second, v.state.current_replicas, "", 0}});
      s.awaiting.erase(it);
    }
  return out;
}

// A model left out of the tick: it keeps its state and its last targets.
void model_not_planned(TickRun& run, std::size_t k, const std::string& why) {
  add_incident(run, run.inputs[k]->model, "model_timeout",
               "did not plan in time (" + why + "); its last decisions stay in force");
}

// The plan deadline passed: the models that have not answered are left out.
void plans_overdue(self_ptr self, const RunPtr& run) {
  const std::string why = "no answer within " + fmt_num(self->state.options.timeouts.model_s) + " s";
  for (std::size_t k = 0; k < run->inputs.size(); ++k)
    if (!run->answered[k]) model_not_planned(*run, k, why);
  finish_plans(self, run);
}

void on_observed(self_ptr self, const RunPtr& run) {
  auto& s = self->state;
  run->summary.observed_ms = ms_since_start(*run);
  run->summary.more = run->observed.more;
  run->summary.last = run->observed.last;
  if (!run->observed.more) return deliver(run);  // nothing more to decide: the run is over
  run->summary.tick = ++s.tick;
  add_event(*run, storage::TickStarted{s.tick, run->time.now_s, run->time.interval_s});
  if (s.record_config) {
    // The whole update, so that a restart's fold runs each tick under the very
    // configurations it ran under live; the layers each value came from beside it.
    const auto origins = s.config.applied.is_object() && s.config.applied.contains("origins")
                             ? s.config.applied.at("origins")
                             : nlohmann::json::object();
    add_event(*run, storage::ConfigApplied{to_message_json(s.config), origins});
    s.record_config = false;
  }
  for (ConfigRejection& r : s.rejections_to_record) add_event(*run, storage::ConfigRejected{r.source, r.error});
  s.rejections_to_record.clear();
  auto& models = run->observed.input.models;
  // Room for the tick's events (an observation per model; a learned, a sizing and a
  // decision event per variant, a forecast per model): regrowing moved each several times.
  std::size_t variants = 0;
  for (const ModelTickInput& m : models) variants += m.variants.size();
  run->events.reserve(run->events.size() + 2 * models.size() + 3 * variants);
  std::vector<storage::Event> reached = acknowledged(s, *run);  // before the observations move out
  for (std::size_t m = 0; m < models.size(); ++m) {
    if (!configured(s.config, models[m].model)) continue;
    // What the tick uses is what is recorded: forward passes only for a policy that
    // reads them (they are most of an observation's bytes). The collector asks the
    // source for no others, so this only guards against a source that sends them all
    // anyway. Freed, not just cleared: the inputs live until the tick ends, and 128
    // kept passes a variant were 12 MB of a 1,000-variant tick's peak.
    if (!s.policy->reads_forward_passes(models[m]))
      for (VariantTickInput& v : models[m].variants) std::vector<ForwardPassSample>().swap(v.forward_passes);
    run->inputs.push_back(std::make_shared<const ModelTickInput>(std::move(models[m])));
    add_event(*run, storage::ObservationRecorded{run->inputs.back()});
  }
  std::move(reached.begin(), reached.end(), std::back_inserter(run->events));
  run->replies.resize(run->inputs.size());
  run->answered.resize(run->inputs.size());
  run->left = run->inputs.size();
  if (run->left == 0) return finish_plans(self, run);
  // One deadline for every model's plan (plans_overdue); the requests themselves wait.
  s.planning = run;
  self->delayed_send(caf::actor_cast<fleet_actor>(self),
                     std::chrono::microseconds(static_cast<long long>(s.options.timeouts.model_s * 1e6)), deadline_atom::value,
                     s.tick);
  const auto fleet_config = std::make_shared<const PolicyConfig>(s.config.fleet);
  for (std::size_t k = 0; k < run->inputs.size(); ++k) {
    const std::shared_ptr<const ModelTickInput>& input = run->inputs[k];
    const auto own = s.config.models.find(input->model);
    auto config = own == s.config.models.end() ? fleet_config : std::make_shared<const PolicyConfig>(own->second);
    // One-way (plan_listener): the model answers with a `planned` message naming the
    // tick and its index, which `planned` below matches to this tick's run.
    self->send(model_for(self, input->model), plan_atom::value, PlanRequest{input, std::move(config), run->time}, s.tick,
               static_cast<std::uint64_t>(k));
  }
}

// Model `k`'s answer to tick `tick`'s plan, if that tick is still planning: a model's
// late answer to a tick already over is dropped, as the deadline has held it.
TickRun* planning_run(self_ptr self, std::uint64_t tick, std::uint64_t k) {
  TickRun* run = self->state.planning.get();
  if (!run || run->planning_over || run->summary.tick != tick || k >= run->inputs.size() || run->answered[k]) return nullptr;
  return run;
}

void answered(self_ptr self, TickRun& run, std::uint64_t k) {
  run.answered[k] = true;
  if (--run.left > 0) return;
  const RunPtr planning = self->state.planning;  // finish_plans resets the state's
  finish_plans(self, planning);
}

// Models stopped while their plan was awaited never answer: the tick goes on without
// them rather than waiting for its deadline.
void stopped_while_planning(self_ptr self, const std::vector<ModelKey>& stopped) {
  const RunPtr run = self->state.planning;
  if (!run || run->planning_over) return;
  for (std::size_t k = 0; k < run->inputs.size() && !run->planning_over; ++k) {
    if (run->answered[k] || std::find(stopped.begin(), stopped.end(), run->inputs[k]->model) == stopped.end()) continue;
    model_not_planned(*run, k, "its actor was stopped: the model left the configuration");
    answered(self, *run, k);
  }
}

}  // namespace

TickConfigs tick_configs(const ConfigUpdate& config) {
  return TickConfigs{config.fleet, config.models, config.await_approval};
}

fleet_actor::behavior_type fleet_behavior(self_ptr self, std::shared_ptr<const TickPolicy> policy, ConfigUpdate config,
                                          FleetStart start, FleetOptions options, collector_actor collector,
                                          journal_actor journal, actuator_actor actuator) {
  auto& s = self->state;
  s.policy = std::move(policy);
  s.options = options;
  s.config = std::move(config);
  s.fleet = start.state;
  s.tick = start.last_tick;
  s.restored = std::move(start.models);
  s.awaiting = std::move(start.awaiting);
  s.collector = std::move(collector);
  s.journal = std::move(journal);
  s.actuator = std::move(actuator);
  return {
      [self](tick_atom, const TickTime& time) -> caf::result<TickSummary> {
        auto run = std::make_shared<TickRun>();
        run->time = time;
        run->promise = self->make_response_promise<TickSummary>();
        run->summary.now_s = time.now_s;
        self->request(self->state.collector, seconds(self->state.options.timeouts.observe_s), observe_atom::value, time)
            .then(
                [self, run](fleet::Observed& observed) {
                  run->observed = std::move(observed);
                  on_observed(self, run);
                },
                [self, run](caf::error& err) {
                  // No observations: nothing is decided, and the tick says why.
                  auto& s = self->state;
                  run->summary.tick = ++s.tick;
                  add_event(*run, storage::TickStarted{s.tick, run->time.now_s, run->time.interval_s});
                  add_incident(*run, std::nullopt, "observe_failed",
                               "no observations this tick (" + to_string(err) + "); every target stays");
                  journal_tick(self, run);
                });
        return run->promise;
      },
      [self](planned_atom, std::uint64_t tick, std::uint64_t k, PlanReply& reply) {
        TickRun* run = planning_run(self, tick, k);
        if (!run) return;
        run->replies[k] = std::move(reply);
        answered(self, *run, k);
      },
      [self](planned_atom, std::uint64_t tick, std::uint64_t k, std::string& error) {
        TickRun* run = planning_run(self, tick, k);
        if (!run) return;
        model_not_planned(*run, k, error);
        answered(self, *run, k);
      },
      [self](deadline_atom, std::uint64_t tick) {
        const RunPtr run = self->state.planning;
        if (run && run->summary.tick == tick) plans_overdue(self, run);
      },
      [self](snapped_atom, std::uint64_t tick, std::uint64_t k, storage::Snapshot& snapshot) {
        if (TickRun* run = snapshotting_run(self, tick, k)) snapshot_arrived(self, *run, k, std::move(snapshot));
      },
      [self](snapped_atom, std::uint64_t tick, std::uint64_t k, std::string& error) {
        if (TickRun* run = snapshotting_run(self, tick, k))
          snapshots_done(self, self->state.snapshotting, std::pair{run->snapshot_models[k], std::move(error)});
      },
      [self](deadline_atom, std::uint64_t tick, snapshot_atom) {
        const RunPtr run = self->state.snapshotting;
        if (!run || run->snapshotting_over || run->summary.tick != tick) return;
        const std::size_t k = static_cast<std::size_t>(
            std::find(run->snapshotted.begin(), run->snapshotted.end(), false) - run->snapshotted.begin());
        snapshots_done(self, run,
                       std::pair{run->snapshot_models.at(k),
                                 "no answer within " + fmt_num(self->state.options.timeouts.model_s) + " s"});
      },
      [self](config_atom, ConfigUpdate& update) {
        auto& s = self->state;
        s.record_config = true;
        s.config = std::move(update);
        const std::vector<ModelKey> stopped = stop_unconfigured(self);
        stopped_while_planning(self, stopped);
        stopped_while_snapshotting(self, stopped);
      },
      [self](config_atom, ConfigRejection& rejection) { self->state.rejections_to_record.push_back(std::move(rejection)); },
  };
}

}  // namespace capstan::actors
