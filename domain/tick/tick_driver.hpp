// The one driver of a tick (DESIGN.md "The tick, as data"): every variant's learn, every
// model's plan, the fleet's allocate, in a fixed order, over plain state values.
// `simulate`, `scenarios` and the tests run it directly; the daemon's actors run the
// same three functions as messages (a variant actor learn, a model actor plan, the
// fleet actor allocate) and `replay` feeds it recorded inputs. No caller has its own
// copy of the loop.
//
// Determinism: the order is the input's (models, then variants, as listed), state maps
// are ordered by key, and nothing reads a clock or a random source, so the same states
// and inputs give the same decisions and events bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <vector>

#include "domain/tick/tick_policy.hpp"

namespace capstan {

// Every state of a fleet under one policy.
struct FleetMemory {
  std::map<VariantKey, VariantMemory> variants;
  std::map<ModelKey, ModelState> models;
  FleetState fleet;
};

struct TickResult {
  FleetMemory next;
  std::vector<Decision> decisions;  // one per variant of every model of the input, in input order
  // learn's (model by model, variant by variant), then each model's plan's, then
  // allocate's, then a DecisionMade per decision in decision order.
  std::vector<TickEvent> events;
};

// The configurations one tick runs under: the fleet's (allocate's: the GPU budget) and
// each model's (learn's and plan's), for a daemon whose models override the fleet's
// SLO; a model without its own runs under the fleet's.
struct TickConfigs {
  PolicyConfig fleet;
  std::map<ModelKey, PolicyConfig> models;
  // Advisory mode: every decision awaits a person, so the models settle them unapplied
  // (settle_unapplied in tick_policy.hpp).
  bool decisions_await_approval = false;

  const PolicyConfig& for_model(const ModelKey& model) const;
};

// Calls body(i) once for each i in [0, count), in any order, possibly at once on several
// threads, and returns when every call has. A tick's models are independent until
// allocate (each learns and plans on its own states only), so a caller with cores to
// spare runs them at once (replay/parallel_for.hpp); the result is the same either way.
// Empty: in order, on the caller's thread.
using ForEachModel = std::function<void(std::size_t count, const std::function<void(std::size_t)>& body)>;

// A state missing from `memory` starts empty (a model or variant seen for the first
// time); states of models absent from this input are kept as they are.
TickResult run_tick(FleetMemory memory, const TickPolicy& policy, const TickInput& input, const TickConfigs& configs,
                    const ForEachModel& for_each_model = {});
// Every model under one configuration.
TickResult run_tick(FleetMemory memory, const TickPolicy& policy, const TickInput& input, const PolicyConfig& config);

}  // namespace capstan
