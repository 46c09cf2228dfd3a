// Whether one model's variants may be split into prefill and decode as configured: a
// model split in two needs both halves, and no `both` variant beside them (the router
// would have to choose between a whole request and half of one, and the autoscaler to
// weigh an aggregated replica against a prefill:decode pair). Read by the simulator's
// fleet files and the daemon's configuration alike.
#pragma once

#include <optional>
#include <span>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan {

// The roles of one model's variants, in order. The error names the variant by index
// ("variants[2].role ..."), for the caller to prefix with where the list lives.
std::optional<Error> check_role_mix(std::span<const Role> roles);

}  // namespace capstan
