#include "domain/tick/tick_driver.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace capstan {

const PolicyConfig& TickConfigs::for_model(const ModelKey& model) const {
  const auto it = models.find(model);
  return it == models.end() ? fleet : it->second;
}

TickResult run_tick(FleetMemory memory, const TickPolicy& policy, const TickInput& input, const PolicyConfig& config) {
  return run_tick(std::move(memory), policy, input, TickConfigs{config, {}});
}

TickResult run_tick(FleetMemory memory, const TickPolicy& policy, const TickInput& input, const TickConfigs& configs,
                    const ForEachModel& for_each_model) {
  const TickTime time{input.now_s, input.interval_s};
  const std::size_t models = input.models.size();
  TickResult out;
  std::size_t variants = 0;
  for (const ModelTickInput& model : input.models) variants += model.variants.size();

  // Each model's slots, found (or made) before the models run, so that no model touches
  // a map another one may be reading.
  struct ModelWork {
    std::vector<VariantMemory*> variant_slots;
    ModelState* model_slot = nullptr;
    std::vector<TickEvent> learn_events, plan_events;
    ModelProposal proposal;
    EnforcerState enforcer_before;  // advisory mode only: the clocks an unapplied tick keeps
  };
  std::vector<ModelWork> work(models);
  for (std::size_t m = 0; m < models; ++m) {
    const ModelTickInput& model = input.models[m];
    work[m].variant_slots.reserve(model.variants.size());
    for (const VariantTickInput& v : model.variants) {
      work[m].variant_slots.push_back(&memory.variants[VariantKey{model.model, v.state.spec.name}]);
    }
    work[m].model_slot = &memory.models[model.model];
  }
  // A model listed twice runs in order: its second entry reads the state the first left.
  std::vector<const ModelState*> slots;
  slots.reserve(models);
  for (const ModelWork& w : work) slots.push_back(w.model_slot);
  std::sort(slots.begin(), slots.end());
  const bool distinct = std::adjacent_find(slots.begin(), slots.end()) == slots.end();
  const auto learn_and_plan = [&](std::size_t m) {
    const ModelTickInput& model = input.models[m];
    const PolicyConfig& config = configs.for_model(model.model);
    ModelWork& w = work[m];
    std::vector<VariantView> views;
    views.reserve(model.variants.size());
    for (std::size_t i = 0; i < model.variants.size(); ++i) {
      VariantMemory& slot = *w.variant_slots[i];
      Learned learned = policy.learn(std::move(slot), model.model, model.variants[i], config, time);
      slot = std::move(learned.next);
      views.push_back(std::move(learned.view));
      for (TickEvent& e : learned.events) w.learn_events.push_back(std::move(e));
    }
    if (configs.decisions_await_approval) w.enforcer_before = w.model_slot->finisher.enforcer;
    Planned planned = policy.plan(std::move(*w.model_slot), model, views, config, time);
    *w.model_slot = std::move(planned.next);
    w.proposal = std::move(planned.proposal);
    w.plan_events = std::move(planned.events);
  };
  if (for_each_model && distinct) {
    for_each_model(models, learn_and_plan);
  } else {
    for (std::size_t m = 0; m < models; ++m) learn_and_plan(m);
  }

  // Room for every event a tick of `hybrid` makes (learn, sizing, decision per variant):
  // an event is a large value, and regrowing the vector moved each of them several times.
  out.events.reserve(3 * variants + models);
  for (ModelWork& w : work) std::move(w.learn_events.begin(), w.learn_events.end(), std::back_inserter(out.events));
  for (ModelWork& w : work) std::move(w.plan_events.begin(), w.plan_events.end(), std::back_inserter(out.events));
  std::vector<ModelProposal> proposals;
  proposals.reserve(models);
  for (ModelWork& w : work) proposals.push_back(std::move(w.proposal));
  Allocated allocated = policy.allocate(std::move(memory.fleet), proposals, configs.fleet, time);
  memory.fleet = std::move(allocated.next);
  for (TickEvent& e : allocated.events) out.events.push_back(std::move(e));

  // Each model settles on its own decisions, moved out and back rather than copied.
  out.decisions.reserve(allocated.decisions.size());
  auto next = allocated.decisions.begin();
  for (std::size_t m = 0; m < models; ++m) {
    const auto n = static_cast<std::ptrdiff_t>(proposals[m].decisions.size());
    std::vector<Decision> mine(std::make_move_iterator(next), std::make_move_iterator(next + n));
    next += n;
    ModelState& slot = *work[m].model_slot;
    slot = configs.decisions_await_approval ? settle_unapplied(std::move(slot), work[m].enforcer_before, mine)
                                            : settle(std::move(slot), mine);
    std::move(mine.begin(), mine.end(), std::back_inserter(out.decisions));
  }
  out.events.reserve(out.events.size() + out.decisions.size());
  for (const Decision& d : out.decisions) out.events.push_back(DecisionMade{d});
  out.next = std::move(memory);
  return out;
}

}  // namespace capstan
