// Resolves the --policy flags of a command into registered policy names, in order and
// without repeats: "all" expands to every registered policy; an unknown name is a
// UsageError listing the known ones.
#pragma once

#include <string>
#include <vector>

namespace capstan::cli {

std::vector<std::string> resolve_policy_names(const std::vector<std::string>& names);

}  // namespace capstan::cli
