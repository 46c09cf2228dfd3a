// A model's prefill/decode split; see role_mix.hpp.
#include "domain/core/role_mix.hpp"

#include <string>

namespace capstan {

std::optional<Error> check_role_mix(std::span<const Role> roles) {
  const auto first = [&](Role role) {
    for (std::size_t i = 0; i < roles.size(); ++i)
      if (roles[i] == role) return static_cast<int>(i);
    return -1;
  };
  const int prefill = first(Role::kPrefill), decode = first(Role::kDecode), both = first(Role::kBoth);
  if (prefill < 0 && decode < 0) return std::nullopt;
  const int split = prefill >= 0 ? prefill : decode;
  if (both >= 0)
    return invalid_argument("variants[" + std::to_string(both) +
                            "].role must be prefill or decode in a disaggregated model (variants[" +
                            std::to_string(split) + "] is " + to_string(roles[static_cast<std::size_t>(split)]) +
                            "), got 'both'");
  if (prefill < 0 || decode < 0)
    return invalid_argument("variants[" + std::to_string(split) + "].role is " + (prefill < 0 ? "decode" : "prefill") +
                            ", so the model needs a variant with role: " + (prefill < 0 ? "prefill" : "decode") +
                            " too");
  return std::nullopt;
}

}  // namespace capstan
