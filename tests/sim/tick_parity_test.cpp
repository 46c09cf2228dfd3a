// The tick as value functions against recorded simulations (tests/data/ticks/README.md):
// the same decisions as before, the same after a snapshot and a restart, and the same
// when the three levels run apart as the daemon's actors will run them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/codec/event_codec.hpp"
#include "domain/codec/msgpack.hpp"
#include "domain/codec/state_codec.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/policies/policy.hpp"
#include "domain/tick/tick_driver.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_runner.hpp"
#include "test_data.hpp"

using namespace capstan;

namespace {

struct Recorded {
  std::string name;
  PolicyConfig config;
  std::map<std::string, std::vector<TickRecording>> ticks;  // by policy, in order
};

PolicyConfig scenario_config(const std::string& path) {
  auto scenario = sim::load_scenario(path);
  REQUIRE(scenario.ok());
  auto prepared = sim::prepare_scenario(std::move(scenario).value());
  REQUIRE(prepared.ok());
  return sim::policy_config(prepared.value());
}

Recorded load_recording(const std::string& name, const std::string& scenario_path) {
  Recorded out{name, scenario_config(scenario_path), {}};
  std::ifstream in(testing::data_path("ticks/" + name + ".jsonl"));
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    auto record = decode_tick_record(nlohmann::json::parse(line));
    REQUIRE(record.ok());
    out.ticks[record.value().policy].push_back(std::move(record).value());
  }
  return out;
}

const std::vector<Recorded>& recordings() {
  static const std::vector<Recorded> all = [] {
    const std::string scenarios = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios/";
    return std::vector<Recorded>{load_recording("budget", scenarios + "budget.yaml"),
                                 load_recording("disagg", scenarios + "disagg.yaml"),
                                 load_recording("stale-gap", testing::data_path("ticks/stale-gap.yaml"))};
  }();
  return all;
}

std::vector<std::string> encoded(const std::vector<TickEvent>& events) {
  std::vector<std::string> out;
  for (const TickEvent& e : events) out.push_back(encode_event(e).dump());
  return out;
}

struct Run {
  std::vector<std::vector<Decision>> decisions;
  std::vector<std::vector<std::string>> events;
  nlohmann::json final_state;
};

Run run_all(DrivenPolicy& policy, const std::vector<TickRecording>& ticks, std::size_t from = 0) {
  Run run;
  for (std::size_t t = from; t < ticks.size(); ++t) {
    run.decisions.push_back(policy.tick(ticks[t].input));
    run.events.push_back(encoded(policy.last_events()));
  }
  run.final_state = policy.save_state();
  return run;
}

// A recorded decision (code and sentence) against a fresh one, which also carries the
// figures its sentence is rendered from.
bool same_outcome(const Decision& fresh, const Decision& recorded) {
  return fresh.model == recorded.model && fresh.variant == recorded.variant &&
         fresh.current_replicas == recorded.current_replicas && fresh.target_replicas == recorded.target_replicas &&
         fresh.reason.code == recorded.reason.code && fresh.reason.text() == recorded.reason.text();
}

// Every sentence, down to the reasons it wraps, is rendered from its figures.
bool rendered_from_figures(const Reason& reason) {
  if (reason.kind().empty() || render_reason(reason) != reason.text()) return false;
  if (reason.text().find("<" + reason.kind() + ": no ") != std::string::npos) return false;  // a figure was missing
  return std::all_of(reason.causes().begin(), reason.causes().end(), rendered_from_figures);
}

DrivenPolicy driven(const std::string& name, const PolicyConfig& config) {
  auto policy = find_policy(name);
  REQUIRE(policy.ok());
  return DrivenPolicy(policy.value(), config);
}

}  // namespace

TEST_CASE("Every registered policy decides every recorded tick as the code before the value functions did") {
  for (const Recorded& r : recordings()) {
    REQUIRE(r.ticks.size() == registered_policies().size());
    for (const auto& [name, ticks] : r.ticks) {
      DrivenPolicy policy = driven(name, r.config);
      for (std::size_t t = 0; t < ticks.size(); ++t) {
        INFO(r.name << " " << name << " tick " << t);
        const std::vector<Decision> decisions = policy.tick(ticks[t].input);
        REQUIRE(decisions.size() == ticks[t].decisions.size());
        for (std::size_t i = 0; i < decisions.size(); ++i) {
          INFO(decisions[i].reason.text());
          REQUIRE(same_outcome(decisions[i], ticks[t].decisions[i]));
          REQUIRE(rendered_from_figures(decisions[i].reason));
        }
      }
    }
  }
}

TEST_CASE("A restart from the saved states after any tick continues bit for bit like an uninterrupted run") {
  for (const Recorded& r : recordings()) {
    for (const auto& [name, ticks] : r.ticks) {
      DrivenPolicy whole = driven(name, r.config);
      const Run reference = run_all(whole, ticks);
      for (std::size_t k = 1; k < ticks.size(); k += 3) {
        INFO(r.name << " " << name << " restarted after tick " << k);
        DrivenPolicy before = driven(name, r.config);
        for (std::size_t t = 0; t < k; ++t) before.tick(ticks[t].input);
        // The snapshot travels as MessagePack bytes, as the event store keeps it.
        auto bytes = to_msgpack_bytes(before.save_state());
        auto snapshot = from_msgpack_bytes(bytes);
        REQUIRE(snapshot.ok());
        DrivenPolicy after = driven(name, r.config);
        REQUIRE(after.restore_state(snapshot.value()).ok());
        const Run resumed = run_all(after, ticks, k);
        for (std::size_t t = k; t < ticks.size(); ++t) {
          INFO("tick " << t);
          REQUIRE(resumed.decisions[t - k] == reference.decisions[t]);
          REQUIRE(resumed.events[t - k] == reference.events[t]);
        }
        REQUIRE(resumed.final_state == reference.final_state);
      }
    }
  }
}

TEST_CASE("The three levels run apart with models planned in reverse order give the whole-fleet result") {
  for (const Recorded& r : recordings()) {
    for (const auto& [name, ticks] : r.ticks) {
      INFO(r.name << " " << name << (r.config.gpu_budget > 0 ? " with a GPU budget" : " without a GPU budget"));
      const auto policy = find_policy(name).value();
      DrivenPolicy whole(policy, r.config);
      // What the variant, model and fleet actors hold.
      std::map<VariantKey, VariantMemory> variants;
      std::map<ModelKey, ModelState> models;
      FleetState fleet;
      for (const TickRecording& tick : ticks) {
        const TickInput& in = tick.input;
        const TickTime time{in.now_s, in.interval_s};
        std::map<ModelKey, std::vector<VariantView>> views;
        for (auto m = in.models.rbegin(); m != in.models.rend(); ++m) {
          for (const VariantTickInput& v : m->variants) {
            VariantMemory& own = variants[{m->model, v.state.spec.name}];
            Learned learned = policy->learn(own, m->model, v, r.config, time);
            own = learned.next;
            views[m->model].push_back(learned.view);
          }
        }
        std::map<ModelKey, ModelProposal> proposals;
        for (auto m = in.models.rbegin(); m != in.models.rend(); ++m) {
          Planned planned = policy->plan(models[m->model], *m, views[m->model], r.config, time);
          models[m->model] = std::move(planned.next);
          proposals[m->model] = std::move(planned.proposal);
        }
        // The fleet orders the proposals as the models are configured.
        std::vector<ModelProposal> ordered;
        for (const ModelTickInput& m : in.models) ordered.push_back(proposals.at(m.model));
        Allocated allocated = policy->allocate(fleet, ordered, r.config, time);
        fleet = allocated.next;
        auto next = allocated.decisions.begin();
        for (const ModelProposal& p : ordered) {
          const std::vector<Decision> mine(next, next + static_cast<std::ptrdiff_t>(p.decisions.size()));
          models[p.model] = settle(std::move(models[p.model]), mine);
          next += static_cast<std::ptrdiff_t>(p.decisions.size());
        }
        REQUIRE(allocated.decisions == whole.tick(in));
      }
      FleetMemory apart{variants, models, fleet};
      CHECK(encode_fleet_memory(name, apart) == whole.save_state());
    }
  }
}

TEST_CASE("A restore that fails leaves the states as they were") {
  const Recorded& r = recordings().front();
  const auto& ticks = r.ticks.at("hybrid");
  DrivenPolicy policy = driven("hybrid", r.config);
  for (std::size_t t = 0; t < 4; ++t) policy.tick(ticks[t].input);
  const nlohmann::json saved = policy.save_state();
  nlohmann::json broken = saved;
  broken["models"][0]["policy"]["recent_demand"] = "not a history";
  const auto refused = policy.restore_state(broken);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("models[0].policy.recent_demand"));
  CHECK(policy.save_state() == saved);
  nlohmann::json other = saved;
  other["policy"] = "erlang";
  CHECK_FALSE(policy.restore_state(other).ok());
  nlohmann::json future = saved;
  future["schema"] = kStateSchema + 1;
  const auto newer = policy.restore_state(future);
  REQUIRE_FALSE(newer.ok());
  CHECK_THAT(newer.error().message, Catch::Contains("schema"));
  CHECK(policy.save_state() == saved);
}

// Not a check but the tool that re-decides the recordings when a change is meant to
// move decisions (tests/data/ticks/README.md): hidden, so only
// `sim_tests "[.redecide]"` runs it. Every recorded tick is decided again in order by
// today's code; where a policy-tick's decisions differ, its line is rewritten with them
// (reasons as code and text, as recorded), and every other line stays byte for byte.
// Advisory mode (`capstan run --connector advisory`): nothing a decision asks for happens
// until a person approves it, so a model must not plan its next tick as if it had. Run
// applied, the recordings hold cooldown holds that the policies' own changes started;
// run advisory on the same inputs, no change starts the enforcer's cooldown, so none
// appears (a stabilization window's hold may: it looks back at recommendations), and
// the metric guard remembers the count each variant has.
TEST_CASE("Advisory mode settles decisions unapplied: an unmade change starts no cooldown and the guard keeps the count the variant has") {
  std::size_t cooldowns_applied = 0, unapplied_changes = 0;
  for (const Recorded& r : recordings()) {
    for (const auto& [name, ticks] : r.ticks) {
      auto policy = find_policy(name);
      REQUIRE(policy.ok());
      FleetMemory applied, advisory;
      for (std::size_t t = 0; t < ticks.size(); ++t) {
        INFO(r.name << " " << name << " tick " << t);
        TickResult a = run_tick(std::move(applied), *policy.value(), ticks[t].input, TickConfigs{r.config, {}, false});
        applied = std::move(a.next);
        for (const Decision& d : a.decisions) cooldowns_applied += d.reason.kind() == "enforcer.cooldown";

        const FleetMemory before = advisory;
        TickResult b = run_tick(std::move(advisory), *policy.value(), ticks[t].input, TickConfigs{r.config, {}, true});
        for (const Decision& d : b.decisions) {
          INFO(d.variant << ": " << d.reason.text());
          REQUIRE(d.reason.kind() != "enforcer.cooldown");
          const ModelFinisherState& settled = b.next.models.at(d.model).finisher;
          if (d.reason.code != ReasonCode::kMetricsMissing) {
            REQUIRE(settled.last_good_target.at(d.variant) == d.current_replicas);
          }
          if (d.target_replicas == d.current_replicas) continue;
          ++unapplied_changes;
          VariantEnforcerState was;  // no entry: no change was ever made
          if (before.models.count(d.model) && before.models.at(d.model).finisher.enforcer.variants.count(d.variant)) {
            was = before.models.at(d.model).finisher.enforcer.variants.at(d.variant);
          }
          const auto now = settled.enforcer.variants.find(d.variant);
          REQUIRE((now == settled.enforcer.variants.end() || now->second.last_change_s == was.last_change_s));
        }
        advisory = std::move(b.next);
      }
    }
  }
  CHECK(cooldowns_applied > 0);  // else the recordings cannot show the difference
  CHECK(unapplied_changes > 0);
}

TEST_CASE("Re-decide the recorded ticks with the current code", "[.redecide]") {
  for (const Recorded& r : recordings()) {
    const std::string path = testing::data_path("ticks/" + r.name + ".jsonl");
    std::ifstream in(path);
    REQUIRE(in);
    std::map<std::string, DrivenPolicy> policies;
    std::map<std::string, int> changed;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
      TickRecording record = decode_tick_record(nlohmann::json::parse(line)).value();
      auto it = policies.find(record.policy);
      if (it == policies.end()) it = policies.emplace(record.policy, driven(record.policy, r.config)).first;
      const std::vector<Decision> fresh = it->second.tick(record.input);
      const bool same = fresh.size() == record.decisions.size() &&
                        std::equal(fresh.begin(), fresh.end(), record.decisions.begin(), same_outcome);
      if (!same) {
        ++changed[record.policy];
        record.decisions.clear();
        for (Decision d : fresh) {
          d.reason = Reason(d.reason.code, d.reason.text());
          record.decisions.push_back(std::move(d));
        }
        line = encode_tick_record(record).dump();
      }
      lines.push_back(line);
    }
    in.close();
    std::ofstream out(path, std::ios::trunc);
    for (const std::string& l : lines) out << l << '\n';
    for (const auto& [policy, n] : changed) WARN(r.name << ": " << policy << " " << n << " policy-ticks changed");
  }
}
