// The table of policies selectable by name. A new policy adds one line here.
#include <algorithm>

#include "domain/fixed_policy.hpp"
#include "domain/policy.hpp"

namespace capstan {

const std::vector<PolicyInfo>& registered_policies() {
  static const std::vector<PolicyInfo> policies{
      // {name, one-line description, factory}
      {"fixed", "static provisioning: holds every variant at its initial replica count", make_fixed_policy},
  };
  return policies;
}

Result<std::unique_ptr<Policy>> make_policy(const std::string& name, const PolicyConfig& config) {
  const auto& all = registered_policies();
  auto it = std::find_if(all.begin(), all.end(), [&](const PolicyInfo& p) { return p.name == name; });
  if (it == all.end()) {
    std::string known;
    for (const PolicyInfo& p : all) known += (known.empty() ? "" : ", ") + p.name;
    return invalid_argument("unknown policy \"" + name + "\"; known policies: " + known);
  }
  return it->make(config);
}

}  // namespace capstan
