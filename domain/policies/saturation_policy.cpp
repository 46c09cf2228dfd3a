#include "domain/policies/saturation_policy.hpp"

#include "domain/model/saturation.hpp"

namespace capstan {
namespace {

class Saturation final : public TickPolicy {
 public:
  std::string name() const override { return "saturation"; }

  Planned plan(ModelState state, const ModelTickInput& m, std::span<const VariantView>, const PolicyConfig& config,
               const TickTime& time) const override {
    std::vector<VariantState> variants;
    for (const VariantTickInput& v : m.variants) variants.push_back(v.state);
    ModelRequests mr{&m, {}};
    auto analysis = analyze_saturation(variants, SaturationConfig{});
    if (analysis) {
      mr.requests = analysis->requests;
    } else {
      for (const VariantState& v : variants) {
        mr.requests.push_back(hold(v.spec.name, v.current_replicas,
                                   make_reason(ReasonCode::kHold, "saturation.failed",
                                               {{"current", v.current_replicas}, {"error", analysis.error().message}})));
      }
    }
    Planned out;
    out.proposal = finish_model(mr, config, time, state.finisher, out.events);
    out.next = std::move(state);
    return out;
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> saturation_policy() {
  static const auto policy = std::make_shared<const Saturation>();
  return policy;
}

}  // namespace capstan
