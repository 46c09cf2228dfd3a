// --policy flag resolution; see policy_names.hpp.
#include "adapters/cli/policy_names.hpp"

#include <algorithm>

#include "adapters/cli/usage_error.hpp"
#include "domain/policies/policy.hpp"

namespace capstan::cli {

std::vector<std::string> resolve_policy_names(const std::vector<std::string>& names) {
  const auto& all = registered_policies();
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& name : names) {
    if (name == "all") {
      for (const PolicyInfo& p : all) add(p.name);
      continue;
    }
    if (std::none_of(all.begin(), all.end(), [&](const PolicyInfo& p) { return p.name == name; })) {
      std::string known;
      for (const PolicyInfo& p : all) known += (known.empty() ? "" : ", ") + p.name;
      throw UsageError("--policy: unknown policy '" + name + "'; known: " + known + ", or all");
    }
    add(name);
  }
  if (out.empty()) throw UsageError("--policy: no policy is registered");
  return out;
}

}  // namespace capstan::cli
