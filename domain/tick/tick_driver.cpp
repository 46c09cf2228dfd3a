#include "domain/tick/tick_driver.hpp"

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

TickResult run_tick(FleetMemory memory, const TickPolicy& policy, const TickInput& input, const TickConfigs& configs) {
  const TickTime time{input.now_s, input.interval_s};
  TickResult out;
  std::size_t variants = 0;
  for (const ModelTickInput& model : input.models) variants += model.variants.size();
  // Room for every event a tick of `hybrid` makes (learn, sizing, decision per variant):
  // an event is a large value, and regrowing the vector moved each of them several times.
  out.events.reserve(3 * variants + input.models.size());
  std::vector<std::vector<VariantView>> views(input.models.size());
  for (std::size_t m = 0; m < input.models.size(); ++m) {
    const ModelTickInput& model = input.models[m];
    views[m].reserve(model.variants.size());
    for (const VariantTickInput& v : model.variants) {
      VariantMemory& slot = memory.variants[VariantKey{model.model, v.state.spec.name}];
      Learned learned = policy.learn(std::move(slot), model.model, v, configs.for_model(model.model), time);
      slot = std::move(learned.next);
      views[m].push_back(std::move(learned.view));
      for (TickEvent& e : learned.events) out.events.push_back(std::move(e));
    }
  }
  std::vector<ModelProposal> proposals;
  proposals.reserve(input.models.size());
  for (std::size_t m = 0; m < input.models.size(); ++m) {
    const ModelTickInput& model = input.models[m];
    ModelState& slot = memory.models[model.model];
    Planned planned = policy.plan(std::move(slot), model, views[m], configs.for_model(model.model), time);
    slot = std::move(planned.next);
    proposals.push_back(std::move(planned.proposal));
    for (TickEvent& e : planned.events) out.events.push_back(std::move(e));
  }
  Allocated allocated = policy.allocate(std::move(memory.fleet), proposals, configs.fleet, time);
  memory.fleet = std::move(allocated.next);
  for (TickEvent& e : allocated.events) out.events.push_back(std::move(e));

  // Each model settles on its own decisions, moved out and back rather than copied.
  out.decisions.reserve(allocated.decisions.size());
  auto next = allocated.decisions.begin();
  for (const ModelProposal& p : proposals) {
    const auto n = static_cast<std::ptrdiff_t>(p.decisions.size());
    std::vector<Decision> mine(std::make_move_iterator(next), std::make_move_iterator(next + n));
    next += n;
    ModelState& slot = memory.models[p.model];
    slot = settle(std::move(slot), mine);
    std::move(mine.begin(), mine.end(), std::back_inserter(out.decisions));
  }
  out.events.reserve(out.events.size() + out.decisions.size());
  for (const Decision& d : out.decisions) out.events.push_back(DecisionMade{d});
  out.next = std::move(memory);
  return out;
}

}  // namespace capstan
